// File checkpoints: the points on a branch the files (and the conversation) can go back to, and what a restore to one puts back (applied in restoreApply.ts).
import type { BlobRef, FileChange, FileRestoreEntry, SessionEntry, UserAttachment } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { entryTitle } from '../session/entryTitle';
import type { RestoreItem } from './restoreApply';

export { applyFileRestore, changedSince, confinedPathBytes, shownPathMismatch } from './restoreApply';
export type { BlobAccess, ExactContent, RestoreItem, RestoreOutcome, RestorePort } from './restoreApply';

/** A point before which the files can be restored: a request the person made, or an earlier file restore. */
export interface Checkpoint {
  entryId: string;
  kind: 'request' | 'restore';
  /** "You: fix the parser", or what an earlier restore did. */
  title: string;
  when: string;
  /** Workspace paths the agent (or a restore) changed from this point on, in the order first changed (the first few). */
  files: string[];
  /** How many files changed from this point on (`files` names the first CHECKPOINT_FILES_LISTED of them). */
  fileCount: number;
  /** The conversation can go back to before this point (false for the session's very first entry). */
  conversation: boolean;
  /** Calls from this point on whose workspace changes were not recorded (a folder too large to snapshot, say): not restorable. */
  unrecorded: UnrecordedChanges;
}

/** Calls whose changes a restore cannot put back, and why (each distinct reason once). */
export interface UnrecordedChanges {
  count: number;
  reasons: string[];
}

function changesOf(entry: SessionEntry): readonly FileChange[] {
  if (entry.type === 'toolResult') return entry.fileChanges ?? [];
  if (entry.type === 'fileRestore') return entry.changes;
  return [];
}

function sameContent(a: BlobRef | null | undefined, b: BlobRef | null | undefined): boolean {
  if (a === null || b === null) return a === b;
  return a !== undefined && b !== undefined && a.sha256 === b.sha256;
}

function restoreTitle(entry: FileRestoreEntry, target: SessionEntry | undefined): string {
  const what = target && isMessageEntry(target) ? ` to before "${entryTitle(target).replace(/^You: /, '')}"` : '';
  return `Restore of ${entry.changes.length} file${entry.changes.length === 1 ? '' : 's'}${what}`;
}

/** What cannot be put back to this point, in words ("" when everything recorded can be). */
export function unrecordedSentence(point: Pick<Checkpoint, 'unrecorded'>): string {
  const { count, reasons } = point.unrecorded;
  if (count === 0) return '';
  return `cannot restore what ${count} command${count === 1 ? '' : 's'} since changed (${reasons.join('; ')})`;
}

/** How many file names one checkpoint carries; `fileCount` says how many changed in all. */
export const CHECKPOINT_FILES_LISTED = 50;

/**
 * Paths in the order they were first changed, as a walk back through the branch meets them: a path met again
 * moves to the front in O(1) (a linked list keyed by path), so the walk is linear in the changes it meets.
 */
class FirstChangeOrder {
  private readonly next = new Map<string, string | undefined>();
  private readonly previous = new Map<string, string | undefined>();
  private head: string | undefined;

  get size(): number {
    return this.next.size;
  }

  moveToFront(path: string): void {
    if (this.head === path) return;
    if (this.next.has(path)) {
      const before = this.previous.get(path);
      const after = this.next.get(path);
      if (before !== undefined) this.next.set(before, after);
      if (after !== undefined) this.previous.set(after, before);
    }
    this.next.set(path, this.head);
    this.previous.set(path, undefined);
    if (this.head !== undefined) this.previous.set(this.head, path);
    this.head = path;
  }

  first(count: number): string[] {
    const found: string[] = [];
    for (let at = this.head; at !== undefined && found.length < count; at = this.next.get(at)) found.push(at);
    return found;
  }
}

/**
 * The branch's checkpoints, newest first: every request, and every file restore (so a restore can be undone).
 * Linear in the branch: each checkpoint names at most CHECKPOINT_FILES_LISTED files (and counts the rest), and
 * the walk stops after `limit` checkpoints (the panel shows the newest few).
 */
export function checkpoints(path: readonly SessionEntry[], limit = Number.POSITIVE_INFINITY): Checkpoint[] {
  const found: Checkpoint[] = [];
  const order = new FirstChangeOrder();
  const unrecorded: UnrecordedChanges = { count: 0, reasons: [] };
  let byId: Map<string, SessionEntry> | undefined;
  for (let index = path.length - 1; index >= 0 && found.length < limit; index--) {
    const entry = path[index] as SessionEntry;
    const changes = changesOf(entry);
    // Walking back, a file changed again earlier moves to the front: the list stays in first-change order.
    for (let at = changes.length - 1; at >= 0; at--) order.moveToFront((changes[at] as FileChange).path);
    if (entry.type === 'toolResult' && entry.checkpointGap !== undefined) {
      unrecorded.count++;
      if (!unrecorded.reasons.includes(entry.checkpointGap) && unrecorded.reasons.length < 5) unrecorded.reasons.push(entry.checkpointGap);
    }
    const isRequest = entry.type === 'user' && !entry.synthetic;
    if (!isRequest && entry.type !== 'fileRestore') continue;
    if (entry.type === 'fileRestore') byId ??= new Map(path.map((candidate) => [candidate.id, candidate]));
    const title = entry.type === 'fileRestore' ? restoreTitle(entry, byId?.get(entry.targetId)) : entryTitle(entry);
    found.push({
      entryId: entry.id,
      kind: isRequest ? 'request' : 'restore',
      title,
      when: entry.timestamp,
      files: order.first(CHECKPOINT_FILES_LISTED),
      fileCount: order.size,
      conversation: index > 0,
      unrecorded: { count: unrecorded.count, reasons: [...unrecorded.reasons] },
    });
  }
  return found;
}

/**
 * What restoring the files to before `entryId` means: for every file changed from that entry on (by the
 * agent or by a restore), the content it had before the first of those changes. Files whose content would
 * not change are left out. Undefined when the entry is not on the branch.
 *
 * The workspace has one state whatever the branch: with `written` (every entry of the session in the order
 * it was written), changes made after the entry on branches left since (a "conversation only" restore, a
 * branch switch) count too, so the files really go back. Copies an undo made repeat changes already counted.
 */
export function planFileRestore(path: readonly SessionEntry[], entryId: string, written?: readonly SessionEntry[]): RestoreItem[] | undefined {
  const from = path.findIndex((entry) => entry.id === entryId);
  if (from < 0) return undefined;
  const start = written ? written.findIndex((entry) => entry.id === entryId) : -1;
  const since = written && start >= 0 ? written.slice(start).filter((entry) => entry.copyOf === undefined) : path.slice(from);
  const items = new Map<string, RestoreItem>();
  for (const entry of since) {
    for (const change of changesOf(entry)) {
      const key = change.absoluteBytes ?? change.absolute;
      const known = items.get(key);
      if (known) {
        known.expected = change.after;
        known.expectedExact = change.exact === true;
        if (change.afterMode === undefined) delete known.expectedMode;
        else known.expectedMode = change.afterMode;
        continue;
      }
      items.set(key, {
        path: change.path,
        absolute: change.absolute,
        ...(change.absoluteBytes ? { absoluteBytes: change.absoluteBytes } : {}),
        target: change.before ?? null,
        targetExact: change.exact === true,
        ...(change.beforeMode !== undefined ? { targetMode: change.beforeMode } : {}),
        expected: change.after,
        expectedExact: change.exact === true,
        ...(change.afterMode !== undefined ? { expectedMode: change.afterMode } : {}),
        restorable: change.before !== undefined,
      });
    }
  }
  // A file whose content and mode would not change is left out; a mode alone (a chmod) is a change to put back.
  const sameMode = (item: RestoreItem): boolean => item.target === null || item.targetMode === undefined || item.expectedMode === undefined || item.targetMode === item.expectedMode;
  return [...items.values()].filter((item) => !item.restorable || !sameContent(item.target, item.expected) || !sameMode(item));
}

/**
 * The note the next request carries when files were restored since the model last spoke: it must not trust
 * what it remembers of them. Undefined when no restore happened since the last message.
 */
export function restoreNotice(path: readonly SessionEntry[]): UserAttachment | undefined {
  const restored: string[] = [];
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index] as SessionEntry;
    if (isMessageEntry(entry)) break;
    if (entry.type !== 'fileRestore') continue;
    for (const change of entry.changes) if (!restored.includes(change.path)) restored.push(change.path);
  }
  if (restored.length === 0) return undefined;
  const lines = restored.map((file) => `- ${file}`).join('\n');
  return {
    label: 'files restored by the user',
    text: `The user restored these files to an earlier checkpoint; edits made to them after it are no longer in the workspace. Read them again before relying on their content or editing them:\n${lines}`,
  };
}
