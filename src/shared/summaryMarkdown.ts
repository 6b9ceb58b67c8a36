// A summary's Markdown as HTML, in time linear in its length: raw HTML escaped, links and images shown as text (the webview sanitizes the result).
import MarkdownIt from 'markdown-it';
import type { Options, Renderer, Token } from 'markdown-it';

/**
 * Summaries come from a model that read untrusted files: no raw HTML, no URLs that could be followed or fetched.
 * markdown-it (CommonMark's delimiter algorithm, a nesting limit) renders runs such as `*a*a*a…` and deep quotes
 * without backtracking; the renderer used before took quadratic time on them (124 ms at 32k characters, twice per
 * edit) and overflowed the stack on a few thousand nested quotes.
 */
const OPTIONS = { html: false, linkify: false, typographer: false, breaks: false } as const;

/** Parses and renders a paragraph's (a heading's, a table cell's) inline Markdown. */
const inline = new MarkdownIt(OPTIONS);
/** Finds the blocks only: their inline text is parsed one bounded piece at a time (see summaryHtml). */
const blocks = new MarkdownIt(OPTIONS);
blocks.core.ruler.disable(['inline', 'text_join']);

/**
 * The most characters of one paragraph parsed at once. markdown-it holds a token and a delimiter per `*` of a
 * paragraph until the paragraph is rendered: one 128k-character line of `*a **b…` kept 40k of each alive, and its
 * time grew 2.8× per doubling (the collector copying them), where pieces of this size cost the same each. A longer
 * paragraph is cut at a line break or a space near this length: emphasis, a code span or a link cut in two there
 * shows its marks as text, which no well-formed summary's paragraph of a few hundred words meets.
 */
export const INLINE_PIECE = 4000;

const escapeHtml = inline.utils.escapeHtml;

function attribute(token: Token | undefined, name: string): string {
  return token?.attrGet(name) ?? '';
}

const rules = inline.renderer.rules;
// A link keeps its label and shows where it pointed as code, never as something to follow.
rules.link_open = () => '';
rules.link_close = (tokens: Token[], index: number): string => {
  let open = index - 1;
  while (open >= 0 && tokens[open]?.type !== 'link_open') open--;
  return ` <code>${escapeHtml(attribute(tokens[open], 'href'))}</code>`;
};
rules.image = (tokens: Token[], index: number, options: Options, env: unknown, self: Renderer): string => {
  const token = tokens[index];
  const alt = token?.children ? self.renderInlineAsText(token.children, options, env) : (token?.content ?? '');
  return `<code>[image: ${escapeHtml(alt)} ${escapeHtml(attribute(token, 'src'))}]</code>`;
};

/** Where the piece of `text` starting at `from` ends: the last line break in its second half, else the last space there, else its bound. */
export function pieceEnd(text: string, from: number): number {
  const limit = from + INLINE_PIECE;
  if (limit >= text.length) return text.length;
  const half = from + INLINE_PIECE / 2;
  // Only the second half is searched, so finding a piece's end costs the piece (lastIndexOf would search to the start).
  let space = -1;
  for (let at = limit - 1; at >= half; at--) {
    const code = text.charCodeAt(at);
    if (code === 0x0a) return at + 1;
    if (code === 0x20 && space < 0) space = at;
  }
  if (space >= 0) return space + 1;
  // Never between the two halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

/**
 * One piece of a paragraph as one flat string. markdown-it's renderInline adds token after token to a string, which
 * V8 keeps as a tree of thousands of parts until something reads it; kept for every piece of a long paragraph, those
 * trees made the collector's work grow faster than the text. Joined per piece, each piece is one string.
 */
function pieceHtml(piece: string, env: object): string {
  const children = inline.parseInline(piece, env)[0]?.children ?? [];
  const renderer = inline.renderer;
  const parts: string[] = [];
  for (let index = 0; index < children.length; index++) {
    const rule = renderer.rules[(children[index] as Token).type];
    parts.push(rule ? rule(children, index, inline.options, env, renderer) : renderer.renderToken(children, index, inline.options));
  }
  return parts.join('');
}

/** One paragraph's inline Markdown as HTML, parsed and rendered a bounded piece at a time. */
function inlineHtml(text: string, env: object): string {
  let html = '';
  for (let from = 0; from < text.length; ) {
    const end = pieceEnd(text, from);
    html += pieceHtml(text.slice(from, end), env);
    from = end;
  }
  return html;
}

/** Markdown → HTML of a few harmless elements, to be sanitized before it reaches the DOM. */
export function summaryHtml(source: string): string {
  // Shared by the block and inline passes: reference definitions found in the blocks resolve in the paragraphs.
  const env = {};
  const tokens = blocks.parse(source, env);
  const renderer = blocks.renderer;
  let html = '';
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    const rule = renderer.rules[token.type];
    if (token.type === 'inline') html += inlineHtml(token.content, env);
    else if (rule) html += rule(tokens, index, blocks.options, env, renderer);
    else html += renderer.renderToken(tokens, index, blocks.options);
  }
  return html;
}
