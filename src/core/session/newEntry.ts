// The fields a caller supplies to append an entry (the log fills in id, parentId and timestamp) and entry ids.
import { randomBytes } from 'node:crypto';
import type { LeafEntry, OpaqueEntry, SessionEntry } from './entries';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Any entry but a `leaf` move or an opaque line, without id/parentId/timestamp; id may be preset (e.g. to name it in a capped output). */
export type NewEntry = DistributiveOmit<Exclude<SessionEntry, LeafEntry | OpaqueEntry>, 'id' | 'parentId' | 'timestamp'> & {
  id?: string;
  timestamp?: string;
};

/** Short random id (8 url-safe characters, 48 bits): unique within a session with overwhelming probability. */
export function newEntryId(): string {
  return randomBytes(6).toString('base64url');
}
