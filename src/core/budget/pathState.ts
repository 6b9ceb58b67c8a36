// What a session path means for the model: the messages in context since the latest compaction (pruned/pinned ids: contextMarkers).
import { splitAtLatestCompaction } from '../context/contextBuilder';
import { pathMarkers } from '../context/pathMarkers';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';

export interface ContextSpan {
  /** The latest compaction on the path, or null. */
  compaction: CompactionEntry | null;
  /** Message entries the model sees verbatim, in order: the previous compaction's kept part, then everything after it (less what was dropped). */
  messages: MessageEntry[];
}

/**
 * Entries before the latest compaction's kept part are represented by its summary only; they are
 * never candidates again (no planner may cross the previous compaction).
 */
export function contextSpan(path: readonly SessionEntry[]): ContextSpan {
  const { compaction, kept } = splitAtLatestCompaction(path);
  const dropped = pathMarkers(path).dropped;
  return { compaction, messages: kept.filter(isMessageEntry).filter((entry) => !dropped.has(entry.id)) };
}
