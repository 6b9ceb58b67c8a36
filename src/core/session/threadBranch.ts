// Where a session must branch when the chat thread no longer shows its later requests (the person edited or removed them).
import type { SessionEntry } from './entries';

export interface ThreadBranchPoint {
  /** The entry to continue from: the session's leaf when the thread's newest @agent reply ended. */
  leafId: string;
  /** The person's requests after it that the thread no longer shows. */
  dropped: number;
}

/**
 * The thread's newest reply ended at `threadLeafId`. When that entry is on the session's current branch and
 * requests the person made follow it there, the chat has dropped them (VS Code removes an edited request and
 * everything after it): the session continues from `threadLeafId` on a new branch. A leaf that moved for
 * another reason (a restore forks elsewhere; a compaction or prune adds no request) is left alone.
 */
export function threadBranchPoint(path: readonly SessionEntry[], threadLeafId: string): ThreadBranchPoint | undefined {
  const at = path.findIndex((entry) => entry.id === threadLeafId);
  if (at < 0) return undefined;
  let dropped = 0;
  for (let index = at + 1; index < path.length; index++) {
    const entry = path[index];
    if (entry?.type === 'user' && !entry.synthetic) dropped++;
  }
  return dropped > 0 ? { leafId: threadLeafId, dropped } : undefined;
}
