// One line that names a message entry ("You: …", "Agent: calls read_file", a tool's output) in pickers and the panel.
import type { MessageEntry } from './entries';

const TITLE_CHARS = 90;

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

export function entryTitle(entry: MessageEntry): string {
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
