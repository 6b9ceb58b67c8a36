// What a command changed in the workspace: shadow-repository snapshots before and after it, turned into restorable file changes.
import { createHash } from 'node:crypto';
import * as nodePath from 'node:path';
import type { BlobRef, FileChange } from '../session/entries';
import { blobRefOf } from '../storage/blobStore';
import { resolveLexically } from '../tools/pathSafety';
import type { SnapshotStore } from './snapshotStore';
import type { GitRunner } from './gitRunner';
import type { Snapshot, SnapshotCaps, SnapshotDifference } from './shadowRepository';
import { DEFAULT_SNAPSHOT_CAPS, ShadowRepository } from './shadowRepository';

/** What a command changed: file changes with their content before and after, and why some could not be recorded. */
export interface CommandChanges {
  changes: FileChange[];
  /** One sentence per changed file that cannot be restored (binary, above the snapshot cap). */
  notes: string[];
  /** Why the command's changes could not be recorded at all (no git, a folder too large), in words for the picker. */
  gap?: string;
}

/** A snapshot of every workspace folder taken before a command; `after` compares the workspace with it. */
export interface PendingCommandSnapshot {
  after(store: SnapshotStore, maxBytes: number): Promise<CommandChanges>;
}

/** Takes the snapshot before a command (the VS Code side: a shadow repository per folder in the extension's storage). */
export interface CommandSnapshots {
  before(label: string, signal?: AbortSignal): Promise<PendingCommandSnapshot>;
  /**
   * Snapshots every folder at the start of a turn (commit message "turn <entryId>"). Nothing is recorded in the
   * session: it takes the costly first snapshot of a folder while the model thinks, so the turn's first command
   * waits less. Never rejects.
   */
  turnStarted(entryId: string): Promise<void>;
}

/** The text of a file's bytes, or undefined when they are not UTF-8 text (a byte-order mark is kept). */
function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The shadow repository's folder for one workspace folder: named by a hash of its path, inside `storage`. */
export function shadowGitDir(storage: string, folder: string): string {
  const key = createHash('sha256').update(folder).digest('hex').slice(0, 16);
  return nodePath.join(storage, 'shadow', `${key}.git`);
}

interface FolderSnapshot {
  repository: ShadowRepository;
  snapshot: Snapshot;
}

/** Largest file above the snapshot cap that is still read to be hashed. */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;

/** Content for one side of a change: a stored blob, null (no file), or why it cannot be restored. */
async function side(repository: ShadowRepository, commit: string, path: string, store: SnapshotStore, maxBytes: number): Promise<{ ref: FileChange['after'] } | { missing: string; hash: FileChange['after'] }> {
  const size = await repository.sizeOf(commit, path);
  if (size === null) return { ref: null };
  const hashOf = (bytes: Buffer): BlobRef => ({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, chars: bytes.length });
  if (size > maxBytes) {
    // Hashed (when not huge) so a restore can still tell whether someone changed the file since; never stored.
    const bytes = size <= MAX_HASHED_BYTES ? await repository.contentOf(commit, path) : null;
    return { missing: `at ${megabytes(size)} it is above compactionAgent.tools.snapshotMaxBytes (${megabytes(maxBytes)})`, hash: bytes ? hashOf(bytes) : { sha256: 'unrecorded', bytes: size, chars: size } };
  }
  const bytes = await repository.contentOf(commit, path);
  if (bytes === null) return { ref: null };
  const text = asText(bytes);
  if (text === undefined) return { missing: 'it is not text', hash: hashOf(bytes) };
  return { ref: maxBytes === Number.POSITIVE_INFINITY || Buffer.byteLength(text, 'utf8') <= maxBytes ? await store.put(text) : blobRefOf(text) };
}

async function folderChanges(before: FolderSnapshot, after: Snapshot, roots: readonly string[], store: SnapshotStore, maxBytes: number, found: CommandChanges): Promise<void> {
  if (!('commit' in before.snapshot) || !('commit' in after)) return;
  const from = before.snapshot.commit;
  const differences: SnapshotDifference[] = await before.repository.differences(from, after.commit);
  for (const difference of differences) {
    const absolute = nodePath.join(before.repository.folder, ...difference.path.split('/'));
    let shown: string;
    try {
      shown = resolveLexically(absolute, roots).relative;
    } catch {
      continue;
    }
    if (!difference.regular) {
      found.notes.push(`${shown} was changed by the command without a checkpoint snapshot (it is a symbolic link or a nested repository), so Restore Checkpoint cannot put it back.`);
      found.changes.push({ path: shown, absolute, after: { sha256: 'unrecorded', bytes: 0, chars: 0 } });
      continue;
    }
    const old = await side(before.repository, from, difference.path, store, maxBytes);
    const now = await side(before.repository, after.commit, difference.path, store, maxBytes);
    const afterRef = 'ref' in now ? now.ref : now.hash;
    if ('missing' in old) {
      found.notes.push(`${shown} was changed by the command without a checkpoint snapshot (${old.missing}), so Restore Checkpoint cannot put it back.`);
      found.changes.push({ path: shown, absolute, after: afterRef });
      continue;
    }
    found.changes.push({ path: shown, absolute, before: old.ref, after: afterRef });
  }
}

/** A snapshot, or why it failed: a broken storage folder must never stop the command itself. */
async function safely(take: () => Promise<Snapshot>): Promise<Snapshot> {
  try {
    return await take();
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}

function gapOf(folders: ReadonlyArray<{ folder: string; snapshot: Snapshot }>, several: boolean): string | undefined {
  const reasons = folders.flatMap(({ folder, snapshot }) => ('unavailable' in snapshot ? [several ? `${nodePath.basename(folder)}: ${snapshot.unavailable}` : snapshot.unavailable] : []));
  return reasons.length > 0 ? [...new Set(reasons)].join('; ') : undefined;
}

/**
 * Command snapshots through one shadow repository per workspace folder, kept under `storage` (the extension's
 * storage, never the folder's own .git). `roots` is read at each command (folders can be added).
 */
export function shadowCommandSnapshots(git: GitRunner, storage: string, roots: () => readonly string[], caps: SnapshotCaps = DEFAULT_SNAPSHOT_CAPS): CommandSnapshots {
  const repositories = new Map<string, ShadowRepository>();
  const repositoryOf = (folder: string): ShadowRepository => {
    let repository = repositories.get(folder);
    if (!repository) {
      repository = new ShadowRepository(git, shadowGitDir(storage, folder), folder, caps);
      repositories.set(folder, repository);
    }
    return repository;
  };
  return {
    async turnStarted(entryId) {
      for (const folder of roots()) await safely(() => repositoryOf(folder).snapshot(`turn ${entryId}`));
    },
    async before(label, signal) {
      const folders = [...roots()];
      const taken: FolderSnapshot[] = [];
      for (const folder of folders) taken.push({ repository: repositoryOf(folder), snapshot: await safely(() => repositoryOf(folder).snapshot(`before: ${label}`, signal)) });
      return {
        async after(store, maxBytes) {
          const found: CommandChanges = { changes: [], notes: [] };
          const states: Array<{ folder: string; snapshot: Snapshot }> = [];
          for (const before of taken) {
            const after = await safely(() => before.repository.snapshot(`after: ${label}`));
            states.push({ folder: before.repository.folder, snapshot: 'unavailable' in before.snapshot ? before.snapshot : after });
            try {
              await folderChanges(before, after, folders, store, maxBytes, found);
            } catch (error) {
              states.push({ folder: before.repository.folder, snapshot: { unavailable: error instanceof Error ? error.message : String(error) } });
            }
          }
          const gap = gapOf(states, folders.length > 1);
          return gap ? { ...found, gap } : found;
        },
      };
    },
  };
}
