// Renders session entries as plain text for read_transcript: numbered messages, tool calls and outputs.
import { userContent } from '../context/userContent';
import type { SessionEntry } from '../session/entries';

export interface TranscriptRange {
  startMessage?: number;
  endMessage?: number;
}

function renderEntry(entry: SessionEntry): string | undefined {
  switch (entry.type) {
    case 'user':
      return `user (${entry.id}):\n${userContent(entry)}`;
    case 'assistant': {
      const calls = entry.toolCalls.map((call) => `  -> ${call.name} ${call.arguments}`).join('\n');
      const body = [entry.text, calls].filter((part) => part !== '').join('\n');
      return `assistant (${entry.id}):\n${body || '[no text]'}`;
    }
    case 'toolResult': {
      const stored = entry.blob ? `\n[full output: read_stored_output {"entryId":"${entry.id}"}]` : '';
      return `tool ${entry.toolName}${entry.isError ? ' (error)' : ''} (${entry.id}):\n${entry.content}${stored}`;
    }
    case 'compaction':
      return `[earlier compaction ${entry.id}] summary:\n${entry.summary}`;
    default:
      return undefined;
  }
}

/** Message entries become "#n role (id):" blocks; bookkeeping entries (prune, pin, label...) are left out. */
export function renderTranscript(entries: readonly SessionEntry[], range: TranscriptRange = {}): string {
  const blocks: string[] = [];
  let number = 0;
  for (const entry of entries) {
    const text = renderEntry(entry);
    if (text === undefined) continue;
    number++;
    if (range.startMessage !== undefined && number < range.startMessage) continue;
    if (range.endMessage !== undefined && number > range.endMessage) break;
    blocks.push(`#${number} ${text}`);
  }
  return blocks.join('\n\n');
}
