// A summary's Markdown as HTML, in time linear in its length: raw HTML escaped, links and images shown as text (the webview sanitizes the result).
import MarkdownIt from 'markdown-it';
import type { Options, Renderer, Token } from 'markdown-it';

/**
 * Summaries come from a model that read untrusted files: no raw HTML, no URLs that could be followed or fetched.
 * markdown-it (CommonMark's delimiter algorithm, a nesting limit) renders runs such as `*a*a*a…` and deep quotes in
 * linear time; the renderer used before took quadratic time on them (124 ms at 32k characters, twice per edit) and
 * overflowed the stack on a few thousand nested quotes.
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });

const escapeHtml = markdown.utils.escapeHtml;

function attribute(token: Token | undefined, name: string): string {
  return token?.attrGet(name) ?? '';
}

const rules = markdown.renderer.rules;
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

/** Markdown → HTML of a few harmless elements, to be sanitized before it reaches the DOM. */
export function summaryHtml(source: string): string {
  return markdown.render(source);
}
