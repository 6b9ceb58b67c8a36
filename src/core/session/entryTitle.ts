// One line that names a message entry ("You: …", "Agent: calls read_file", a tool's output) in pickers and the panel.
import type { MessageEntry } from './entries';

const TITLE_CHARS = 90;

/**
 * The text with each run of whitespace made one space and trimmed, shortened to TITLE_CHARS: reads only as far as
 * the title needs (a tool's output can be megabytes, and the panel names entries after every appended one).
 */
function oneLine(text: string): string {
  let line = '';
  let space = false;
  for (let at = 0; at < text.length && line.length <= TITLE_CHARS; at++) {
    const char = text[at] as string;
    if (/\s/.test(char)) {
      space = line.length > 0;
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += char;
  }
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/** Titles by entry: an entry never changes, so neither does its title. */
const titles = new WeakMap<MessageEntry, string>();

export function entryTitle(entry: MessageEntry): string {
  let title = titles.get(entry);
  if (title === undefined) {
    title = titleOf(entry);
    titles.set(entry, title);
  }
  return title;
}

function titleOf(entry: MessageEntry): string {
  switch (entry.type) {
    case 'user':
      return `You: ${oneLine(entry.text) || '(empty)'}`;
    case 'assistant': {
      const calls = entry.toolCalls.map((call) => call.name).join(', ');
      const text = oneLine(entry.text);
      return `Agent: ${text || (calls ? `calls ${calls}` : '(empty)')}`;
    }
    case 'toolResult':
      return `${entry.toolName}${entry.isError ? ' (error)' : ''}: ${oneLine(entry.content) || '(no output)'}`;
  }
}
