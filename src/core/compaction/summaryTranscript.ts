// Compaction, stage 2a: the transcript the summarizer reads (each entry as text, long outputs as head and tail).
import type { MessageEntry } from '../session/entries';

/** Tool outputs and arguments longer than this reach the summarizer as head + tail. */
export const SUMMARY_OUTPUT_CHARS = 2000;

/** Keeps the head and tail of a long text with a note of what was left out. */
export function headTail(text: string, maxChars: number = SUMMARY_OUTPUT_CHARS): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} chars omitted …]\n${text.slice(-half)}`;
}

/**
 * `text` within `limit` tokens: whole when it fits, else its head and tail, shortened until the count agrees (text
 * dense in tokens, such as symbols or CJK, takes more than four characters a token). Never below about 200
 * characters: a pass that no longer shortens the text ends the loop (at a limit of a few tokens, head and tail of 200
 * with the omission note is as short as it gets, and looping on it never ended).
 */
export function fitTokens(text: string, limit: number, countTokens: (text: string) => number): string {
  let tokens = countTokens(text);
  let fitted = text;
  while (tokens > limit && fitted.length > 200) {
    const shorter = headTail(fitted, Math.max(200, Math.floor(((fitted.length * limit) / tokens) * 0.9)));
    if (shorter.length >= fitted.length) break;
    fitted = shorter;
    tokens = countTokens(fitted);
  }
  return fitted;
}

/**
 * A tool output already pruned from the context reaches the summarizer shorter still: the model had worked past it
 * (its placeholder was all it saw), its head and tail still name what it showed, and it stays readable by id. At an
 * 8k window this halves the summary calls per compaction (BENCHMARKS.md, row 8).
 */
export const PRUNED_SUMMARY_OUTPUT_CHARS = 600;

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * One transcript block per entry. User text stays whole (it carries the requirements); attachments are shortened like
 * outputs; an output in `pruned` (ids of tool results pruned on the path) is shortened more.
 */
export function entryBlock(entry: MessageEntry, pruned: ReadonlySet<string> = NO_IDS): string {
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
      return pruned.has(entry.id)
        ? `[${entry.toolName} ${entry.isError ? 'error' : 'result'}, pruned from the context earlier]\n${headTail(entry.content, PRUNED_SUMMARY_OUTPUT_CHARS)}`
        : `[${entry.toolName} ${entry.isError ? 'error' : 'result'}]\n${headTail(entry.content)}`;
  }
}
