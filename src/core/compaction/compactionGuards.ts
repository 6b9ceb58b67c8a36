// Loop guards: no automatic compaction without new content, and a compaction that does not shrink is an error.
import type { SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';

/** A compaction must bring the context below this share of its size before, or it failed. */
export const MIN_SHRINK_RATIO = 0.9;

/**
 * Automatic compaction is allowed only when a message was appended since the latest compaction;
 * otherwise compacting again would summarize the same content in a loop.
 */
export function hasNewContentSinceCompaction(path: readonly SessionEntry[]): boolean {
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index];
    if (!entry) continue;
    if (entry.type === 'compaction') return false;
    if (isMessageEntry(entry) && !(entry.type === 'user' && entry.synthetic)) return true;
  }
  return true;
}

/** An error message when the compaction did not shrink the context meaningfully, else null. */
export function shrinkProblem(tokensBefore: number, tokensAfter: number): string | null {
  if (tokensAfter <= tokensBefore * MIN_SHRINK_RATIO) return null;
  return `Compaction did not shrink the context enough (${tokensBefore} → ${tokensAfter} tokens); not retrying automatically. Pin fewer messages, lower keepRecentTokens, or raise the context window.`;
}
