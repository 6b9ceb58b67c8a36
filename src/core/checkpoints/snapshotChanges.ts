// What one command changed in one workspace folder: the entries its stat index took between the snapshots before and after the command, turned into restorable file changes or notes.
import * as nodePath from 'node:path';
import type { BlobRef, FileChange } from '../session/entries';
import { identityOf, permissionsOf, type FileState, type FolderSnapshot } from './folderSnapshot';
import { isRawKey, keyBytes, shownKey } from './pathKeys';
import type { ContentStore } from './snapshotStore';
import type { IndexChange } from './statIndex';

/** What a command changed: file changes with their content before and after, and why some could not be recorded. */
export interface CommandChanges {
  changes: FileChange[];
  /** One sentence per changed file that cannot be restored (a link, above the snapshot cap) or is left out (saved by the person). */
  notes: string[];
  /** Why the command's changes could not all be recorded (a folder too large, the store full), in words for the picker. */
  gap?: string;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A path as the platform compares them (case folded where file systems fold it). */
export function comparable(path: string): string {
  const normal = nodePath.normalize(path);
  return process.platform === 'win32' || process.platform === 'darwin' ? normal.toLowerCase() : normal;
}

function refOf(state: FileState): BlobRef {
  return { sha256: state.sha256 || 'unrecorded', bytes: state.size, chars: state.size };
}

/** True when the two states are different versions of the file (content, link target or mode), or one is missing. */
function differs(was: FileState | undefined, now: FileState | undefined): boolean {
  if (was === now) return false;
  return !was || !now || was.link !== now.link || identityOf(was) !== identityOf(now);
}

/** Why the content before a change is not kept, or undefined when it is (and is still in the store). */
async function missingBefore(state: FileState, store: ContentStore, maxBytes: number): Promise<string | undefined> {
  if (state.link) return 'it is a symbolic link';
  if (state.stored) return (store.keepSync?.(refOf(state)) ?? (await store.keep(refOf(state)))) ? undefined : 'its earlier content is no longer in the checkpoint store';
  if (state.size > maxBytes) return `at ${megabytes(state.size)} it is above compactionAgent.tools.snapshotMaxBytes (${megabytes(maxBytes)})`;
  return 'it could not be read';
}

export interface Comparison {
  folder: string;
  /** What the folder's index took between the snapshot before the command and the one after it. */
  changes: readonly IndexChange[];
  after: FolderSnapshot;
  store: ContentStore;
  maxBytes: number;
  saved: ReadonlySet<string>;
}

/** The changes between two snapshots of one folder, in key order; each changed file is a FileChange or a note. */
export async function folderChanges(comparison: Comparison, found: CommandChanges, savedShown: string[], seen: Set<string>): Promise<void> {
  const { folder, after, store, maxBytes } = comparison;
  const changed = comparison.changes.filter((change) => differs(change.before, change.after)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { key, before: was, after: now } of changed) {
    const shown = shownKey(key);
    const absolute = nodePath.join(folder, ...shown.split('/'));
    if (seen.has(comparable(absolute))) continue;
    seen.add(comparable(absolute));
    if (comparison.saved.has(comparable(absolute))) {
      savedShown.push(shown);
      found.notes.push(`${shown} was saved in the editor while the command ran: that change is yours, so it is not part of this checkpoint and Restore Checkpoint leaves the file as it is.`);
      continue;
    }
    const exactPath = isRawKey(key) || (nodePath.sep === '/' && key.includes('\\'));
    // A file's mode is part of its state: a chmod alone is a change, and a deleted file comes back with its mode.
    const beforeMode = was ? permissionsOf(was) : undefined;
    const afterMode = now ? permissionsOf(now) : undefined;
    const change: FileChange = {
      path: shown,
      absolute,
      ...(exactPath ? { absoluteBytes: Buffer.concat([Buffer.from(folder, 'utf8'), Buffer.from(nodePath.sep), keyBytes(key)]).toString('base64') } : {}),
      exact: true,
      after: now ? refOf(now) : null,
      ...(afterMode !== undefined ? { afterMode } : {}),
    };
    const missing = was ? await missingBefore(was, store, maxBytes) : now?.link ? 'it is a symbolic link' : undefined;
    if (missing !== undefined) {
      found.notes.push(`${shown} was changed by the command without a checkpoint snapshot (${missing}), so Restore Checkpoint cannot put it back.`);
      found.changes.push(change);
      continue;
    }
    found.changes.push({ ...change, before: was ? refOf(was) : null, ...(beforeMode !== undefined ? { beforeMode } : {}) });
  }
  if (after.overBudget > 0) {
    found.notes.push(`${after.overBudget} ${after.overBudget === 1 ? 'entry' : 'entries'} of ${nodePath.basename(after.folder)} took more steps to judge by its .gitignore rules than one entry may take: snapshotted as not ignored.`);
  }
  if (after.unreadable.length > 0) {
    found.notes.push(`${after.unreadable.length} folder${after.unreadable.length === 1 ? '' : 's'} could not be read (${after.unreadable.slice(0, 3).join(', ')}): what the command changed there is not recorded.`);
  }
}
