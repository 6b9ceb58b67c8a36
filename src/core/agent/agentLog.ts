// The part of SessionLog the agent needs (a narrow port, so the loop works on any conforming log).
import type { SessionLog } from '../session/sessionLog';
import type { SessionAccess } from '../tools/toolTypes';

export type AgentLog = Pick<SessionLog, 'append' | 'path' | 'blobs' | 'tree' | 'leafId'>;

/** The tools' read view of the session (read_stored_output, read_transcript). */
export function sessionAccess(log: AgentLog): SessionAccess {
  return {
    entry: (id) => log.tree.get(id),
    path: () => log.path(),
    readBlob: (ref) => log.blobs.read(ref),
  };
}
