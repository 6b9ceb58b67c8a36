// Where file snapshots go: the session's content-addressed blob store, shared by file-tool and command snapshots.
import type { BlobRef } from '../session/entries';

/** A second put of the same text writes nothing. */
export interface SnapshotStore {
  put(text: string): Promise<BlobRef>;
}

/** What command snapshots need of the blob store (BlobStore is one): exact bytes, and marking stored content as in use. */
export interface ContentStore extends SnapshotStore {
  /** The folder holding the blobs (its size is what compactionAgent.tools.snapshotStoreMaxMegabytes caps). */
  readonly dir: string;
  putBytes(data: Buffer, options?: { durable?: boolean }): Promise<BlobRef>;
  /** Marks a stored blob as in use now; false when it is not stored. */
  keep(ref: Pick<BlobRef, 'sha256' | 'bytes'>): Promise<boolean>;
  /** keep without a promise, when the store can (undefined: it cannot tell synchronously). */
  keepSync?(ref: Pick<BlobRef, 'sha256' | 'bytes'>): boolean | undefined;
  /** putBytes without a promise and without fsync, when the store can (false: it cannot). */
  putBytesSync?(data: Buffer, ref: Pick<BlobRef, 'sha256'>): boolean;
}

/** True when the store can keep exact bytes (the blob store of a session log can). */
export function isContentStore(store: SnapshotStore): store is ContentStore {
  const candidate = store as Partial<ContentStore>;
  return typeof candidate.putBytes === 'function' && typeof candidate.keep === 'function' && typeof candidate.dir === 'string';
}
