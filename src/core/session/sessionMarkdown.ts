// A session's current branch as Markdown, for export: requests, answers, tool calls with their results, compactions.
import type { SessionEntry, ToolCall } from './entries';

/** Longest run of backticks in `text`, so a fence around it can be one longer and never closes early. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function fenced(text: string, language = ''): string {
  const fence = fenceFor(text);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Longest name, id or timestamp quoted in a heading or label. */
const LABEL_CHARS = 200;

/**
 * Text from the session (a tool name, model id, timestamp, title) as plain inline Markdown: one line, clipped,
 * with the characters that start HTML, code, emphasis, links or tables backslash-escaped, so it cannot open a
 * heading, a tag or a block that swallows what follows.
 */
export function inlineText(text: string, limit = LABEL_CHARS): string {
  const line = text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
  const clipped = line.length > limit ? `${line.slice(0, limit)}…` : line;
  return clipped.replace(/[\\`*<>&[\]|~]/g, (char) => `\\${char}`);
}

/** A file name as inline code: one line, clipped, no backtick to close the span early. */
function inlineCode(text: string): string {
  const line = text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').replace(/`/g, "'");
  return `\`${line.length > 1000 ? `${line.slice(0, 1000)}…` : line}\``;
}

/** A fence opening or closing line (CommonMark: up to three spaces, then three or more backticks or tildes). */
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
/** HTML that opens a block running to a closing tag or to the end of the document (CommonMark HTML blocks 1-5). */
const OPEN_HTML = /<(?=[!?/a-zA-Z])/g;

/**
 * An answer's own Markdown, kept as Markdown but closed: a code block left open (an answer cut off) is closed
 * at its end, and `<` outside code blocks and code spans is escaped, so no comment, script or other raw HTML
 * block can swallow the rest of the document.
 */
export function closedMarkdown(text: string): string {
  // A lone carriage return ends a line too (CommonMark), so it is one here as well.
  const lines = text.split(/\r\n?|\n/);
  let open: { char: string; length: number } | undefined;
  const out = lines.map((line) => {
    const fence = FENCE_LINE.exec(line);
    if (open) {
      if (fence && fence[1]?.[0] === open.char && (fence[1]?.length ?? 0) >= open.length && (fence[2] ?? '').trim() === '') open = undefined;
      return line;
    }
    if (fence && !(fence[1]?.[0] === '`' && (fence[2] ?? '').includes('`'))) {
      open = { char: fence[1]?.[0] ?? '`', length: fence[1]?.length ?? 3 };
      return line;
    }
    return outsideCodeSpans(line, (part) => part.replace(OPEN_HTML, '\\<'));
  });
  if (open) out.push(open.char.repeat(open.length));
  return out.join('\n');
}

/** `line` with `change` applied to what is not inside a code span (a backtick run closed by one of the same length). */
function outsideCodeSpans(line: string, change: (part: string) => string): string {
  let result = '';
  let at = 0;
  const runs = /`+/g;
  for (let match = runs.exec(line); match; match = runs.exec(line)) {
    const close = line.indexOf(match[0], match.index + match[0].length);
    const closesExactly = close >= 0 && line[close + match[0].length] !== '`';
    if (!closesExactly) continue;
    result += change(line.slice(at, match.index)) + line.slice(match.index, close + match[0].length);
    at = close + match[0].length;
    runs.lastIndex = at;
  }
  return result + change(line.slice(at));
}

function callLine(call: ToolCall): string {
  return `**→ ${inlineText(call.name)}**\n\n${fenced(call.arguments, 'json')}`;
}

/**
 * Everything on the path root→leaf, nothing left out: pruned outputs appear in full (pruning only hides them
 * from the model), and a compaction shows its summary where it happened.
 */
export function sessionMarkdown(title: string, path: readonly SessionEntry[]): string {
  const parts: string[] = [`# ${inlineText(title.replace(/\s+/g, ' ')) || 'Session'}`];
  let turn = 0;
  for (const entry of path) {
    switch (entry.type) {
      case 'user':
        if (entry.synthetic) break;
        turn++;
        parts.push(`## Turn ${turn} · ${inlineText(entry.timestamp, 60)}\n\n**You:**\n\n${fenced(entry.text, 'text')}`);
        break;
      case 'assistant': {
        const body = [entry.text.trim() ? closedMarkdown(entry.text) : '', ...entry.toolCalls.map(callLine)].filter(Boolean).join('\n\n');
        if (body) parts.push(`**Agent${entry.model ? ` (${inlineText(entry.model)})` : ''}:**\n\n${body}`);
        break;
      }
      case 'toolResult':
        parts.push(`**${inlineText(entry.toolName)}${entry.isError ? ' (error)' : ''} result:**\n\n${fenced(entry.content, 'text')}`);
        break;
      case 'compaction':
        parts.push(`> **Compacted** (${entry.auto ? 'automatic' : 'manual'}, ${Number(entry.tokensBefore)} → ${Number(entry.tokensAfter)} tokens). The model saw this summary from here on:\n\n${fenced(entry.summary, 'markdown')}`);
        break;
      case 'drop':
        parts.push(`> **${entry.dropped ? 'Dropped from the context' : 'Brought back into the context'}** by the person: ${inlineText(entry.label, 300)} (${Number(entry.tokens)} tokens).`);
        break;
      case 'fileRestore':
        parts.push(`> **Files restored** to an earlier checkpoint: ${entry.changes.map((change) => inlineCode(change.path)).join(', ')}.`);
        break;
      default:
        break;
    }
  }
  return `${parts.join('\n\n')}\n`;
}
