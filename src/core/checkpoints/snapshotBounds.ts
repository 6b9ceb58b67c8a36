// What a folder snapshot writes to and is bounded by (store, caps, the person's stop), why one is not taken, and how two states of a file compare.
import type { FolderWatch } from './folderWatch';
import type { ContentStore } from './snapshotStore';
import type { IndexedFile } from './statIndex';
import type { StoreBudget } from './storeBudget';
import type { Pause } from './walkSlices';

/** One file as a snapshot saw it: its index entry (a file the index vouches for costs no new object). */
export type FileState = IndexedFile;

/** The permission bits of a file's mode (what a restore sets), or undefined when none was recorded. */
export function permissionsOf(state: Pick<FileState, 'mode' | 'link'>): number | undefined {
  return state.link || state.mode === undefined ? undefined : state.mode & 0o7777;
}

/** What tells two versions of a file apart: its hash (or its stats when it was not hashed) and its permission bits. */
export function identityOf(state: FileState): string {
  const identity = state.sha256 || `stat:${state.size}:${state.mtimeMs}:${state.ctimeMs}:${state.ino}`;
  if (state.link) return `link:${identity}`;
  const permissions = permissionsOf(state);
  return permissions === undefined ? identity : `${identity}:${permissions.toString(8)}`;
}

/** What one snapshot may take: beyond either cap the folder is not snapshotted (and the picker says so). */
export interface SnapshotCaps {
  maxFiles: number;
  /** Sum of the sizes of the files a snapshot keeps (those not ignored and within snapshotMaxBytes). */
  maxBytes: number;
}

/** 1 GB of kept files: what the first snapshot of a folder reads and compresses once (some seconds of one core) at most. */
export const DEFAULT_SNAPSHOT_CAPS: SnapshotCaps = { maxFiles: 50_000, maxBytes: 1024 * 1024 * 1024 };

/** Largest file hashed when it is not kept (above snapshotMaxBytes): a larger one is compared by its stats only. */
export const MAX_HASHED_BYTES = 64 * 1024 * 1024;

/** Why a snapshot was not taken, in words for the person. */
export class SnapshotUnavailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SnapshotUnavailable';
  }
}

/** Everything one snapshot writes to and is bounded by. */
export interface SnapshotContext {
  store: ContentStore;
  /** Largest file whose bytes are kept (compactionAgent.tools.snapshotMaxBytes). */
  maxBytes: number;
  caps: SnapshotCaps;
  budget: StoreBudget;
  signal?: AbortSignal;
  /** How the walk lets the event loop run between slices (default: setImmediate); see walkSlices.ts. */
  pause?: Pause;
  /** The folder's watch: every folder a full walk lists is added to it (see folderWatch.ts). */
  watch?: FolderWatch;
}

/** The largest file hashed: one kept is always hashed, one not kept up to MAX_HASHED_BYTES. */
export function hashedUpTo(context: Pick<SnapshotContext, 'maxBytes'>): number {
  return Math.max(context.maxBytes, MAX_HASHED_BYTES);
}

export function stopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SnapshotUnavailable('the snapshot was stopped');
}
