// Renders entries as a transcript for the summarizer: long outputs shortened to head/tail, split into chunks that fit.
import type { MessageEntry } from '../session/entries';

/** Tool outputs and arguments longer than this reach the summarizer as head + tail. */
export const SUMMARY_OUTPUT_CHARS = 2000;

/** Keeps the head and tail of a long text with a note of what was left out. */
export function headTail(text: string, maxChars: number = SUMMARY_OUTPUT_CHARS): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} chars omitted …]\n${text.slice(-half)}`;
}

/** One transcript block per entry. User text stays whole (it carries the requirements); attachments are shortened like outputs. */
export function entryBlock(entry: MessageEntry): string {
  switch (entry.type) {
    case 'user': {
      const attached = (entry.attachments ?? []).map((attachment) => `[user attached ${attachment.label}]\n${headTail(attachment.text)}`);
      return [`[user${entry.synthetic ? ' (automatic)' : ''}]\n${entry.text}`, ...attached].join('\n');
    }
    case 'assistant': {
      const lines = entry.text.trim() ? [`[assistant]\n${entry.text}`] : [];
      for (const call of entry.toolCalls) lines.push(`[assistant calls ${call.name}] ${headTail(call.arguments)}`);
      if (entry.error) lines.push(`[assistant error] ${entry.error}`);
      return lines.length > 0 ? lines.join('\n') : '[assistant] (empty reply)';
    }
    case 'toolResult':
      return `[${entry.toolName} ${entry.isError ? 'error' : 'result'}]\n${headTail(entry.content)}`;
  }
}

/**
 * Groups blocks into chunks of at most `budget` tokens, in order. A single block larger than the
 * budget is shortened (head/tail) to fit rather than dropped.
 */
export function chunkBlocks(blocks: readonly string[], budget: number, countTokens: (text: string) => number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const original of blocks) {
    let block = original;
    let tokens = countTokens(block) + 1;
    while (tokens > budget && block.length > 200) {
      block = headTail(block, Math.floor((block.length * budget) / tokens * 0.9));
      tokens = countTokens(block) + 1;
    }
    if (used + tokens > budget && current.length > 0) {
      chunks.push(current.join('\n\n'));
      current = [];
      used = 0;
    }
    current.push(block);
    used += tokens;
  }
  if (current.length > 0) chunks.push(current.join('\n\n'));
  return chunks;
}
