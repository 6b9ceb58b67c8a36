// Where file snapshots go: the session's content-addressed blob store, shared by file-tool and command snapshots.
import type { BlobRef } from '../session/entries';

/** A second put of the same text writes nothing. */
export interface SnapshotStore {
  put(text: string): Promise<BlobRef>;
}
