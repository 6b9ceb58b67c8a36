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

function callLine(call: ToolCall): string {
  return `**→ ${call.name}**\n\n${fenced(call.arguments, 'json')}`;
}

/**
 * Everything on the path root→leaf, nothing left out: pruned outputs appear in full (pruning only hides them
 * from the model), and a compaction shows its summary where it happened.
 */
export function sessionMarkdown(title: string, path: readonly SessionEntry[]): string {
  const parts: string[] = [`# ${title.replace(/\s+/g, ' ').trim() || 'Session'}`];
  let turn = 0;
  for (const entry of path) {
    switch (entry.type) {
      case 'user':
        if (entry.synthetic) break;
        turn++;
        parts.push(`## Turn ${turn} · ${entry.timestamp}\n\n**You:**\n\n${fenced(entry.text, 'text')}`);
        break;
      case 'assistant': {
        const body = [entry.text.trim() ? entry.text : '', ...entry.toolCalls.map(callLine)].filter(Boolean).join('\n\n');
        if (body) parts.push(`**Agent${entry.model ? ` (${entry.model})` : ''}:**\n\n${body}`);
        break;
      }
      case 'toolResult':
        parts.push(`**${entry.toolName}${entry.isError ? ' (error)' : ''} result:**\n\n${fenced(entry.content, 'text')}`);
        break;
      case 'compaction':
        parts.push(`> **Compacted** (${entry.auto ? 'automatic' : 'manual'}, ${entry.tokensBefore} → ${entry.tokensAfter} tokens). The model saw this summary from here on:\n\n${fenced(entry.summary, 'markdown')}`);
        break;
      case 'fileRestore':
        parts.push(`> **Files restored** to an earlier checkpoint: ${entry.changes.map((change) => `\`${change.path.replace(/`/g, "'")}\``).join(', ')}.`);
        break;
      default:
        break;
    }
  }
  return `${parts.join('\n\n')}\n`;
}
