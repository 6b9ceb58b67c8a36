// Where file snapshots go: the session's content-addressed blob store, shared by file-tool and command snapshots.
import type { BlobRef } from '../session/entries';
import type { ChunkedWrite, Reserve } from '../storage/blobStore';

/** A second put of the same text writes nothing. */
export interface SnapshotStore {
  put(text: string): Promise<BlobRef>;
}

/** What command snapshots need of the blob store (BlobStore is one): exact bytes, and marking stored content as in use. */
export interface ContentStore extends SnapshotStore {
  /** The folder holding the blobs (its size is what compactionAgent.tools.snapshotStoreMaxMegabytes caps). */
  readonly dir: string;
  /** Stores exact bytes (compressed); `reserve` is asked for the room each file written takes, and rejects when there is none. */
  putBytes(data: Buffer, options?: { durable?: boolean; reserve?: Reserve }): Promise<BlobRef>;
  /** Marks a stored blob as in use now; false when it is not stored. */
  keep(ref: Pick<BlobRef, 'sha256' | 'bytes'>): Promise<boolean>;
  /** keep without a promise, when the store can (undefined: it cannot tell synchronously). */
  keepSync?(ref: Pick<BlobRef, 'sha256' | 'bytes'>): boolean | undefined;
  /** putBytes without a promise and without fsync, when the store can and `reserve` grants the room at once (false: nothing written). */
  putBytesSync?(data: Buffer, ref: Pick<BlobRef, 'sha256'>, reserve?: (bytes: number) => boolean): boolean;
  /** Stores content handed over a piece at a time (a large file), by content-defined chunks: one chunk in memory at a time. */
  writeChunked?(options?: { durable?: boolean; reserve?: Reserve }): ChunkedWrite;
}

/** True when the store can keep exact bytes (the blob store of a session log can). */
export function isContentStore(store: SnapshotStore): store is ContentStore {
  const candidate = store as Partial<ContentStore>;
  return typeof candidate.putBytes === 'function' && typeof candidate.keep === 'function' && typeof candidate.dir === 'string';
}
