// What a command changed in the workspace: a snapshot of every folder before and after it (our own walk, no program started), turned into restorable file changes.
import { createHash } from 'node:crypto';
import * as nodePath from 'node:path';
import type { BlobRef, FileChange } from '../session/entries';
import { SNAPSHOT_INDEX_DIR, SNAPSHOT_INDEX_SUFFIX } from '../storage/blobCollector';
import { DEFAULT_SNAPSHOT_CAPS, identityOf, permissionsOf, SnapshotUnavailable, takeFolderSnapshot, type FileState, type FolderSnapshot, type SnapshotCaps } from './folderSnapshot';
import { FolderRules } from './ignoreFiles';
import { isRawKey, keyBytes, shownKey } from './pathKeys';
import { isContentStore, type ContentStore, type SnapshotStore } from './snapshotStore';
import { StatIndex } from './statIndex';
import { StoreBudget } from './storeBudget';

/** What a command changed: file changes with their content before and after, and why some could not be recorded. */
export interface CommandChanges {
  changes: FileChange[];
  /** One sentence per changed file that cannot be restored (a link, above the snapshot cap) or is left out (saved by the person). */
  notes: string[];
  /** Why the command's changes could not all be recorded (a folder too large, the store full), in words for the picker. */
  gap?: string;
}

/** A snapshot of every workspace folder taken before a command; `after` compares the workspace with it. */
export interface PendingCommandSnapshot {
  after(): Promise<CommandChanges>;
}

/** Where a snapshot's content goes and how much of one file is kept. */
export interface SnapshotTarget {
  /** The session's blob store (content-addressed: an unchanged file costs nothing twice). */
  store: SnapshotStore;
  /** compactionAgent.tools.snapshotMaxBytes: a larger file is compared by its hash but not kept. */
  maxBytes: number;
  signal?: AbortSignal;
}

/** Takes the snapshots around each command (the VS Code side and tests create one with workspaceCommandSnapshots). */
export interface CommandSnapshots {
  before(label: string, target: SnapshotTarget): Promise<PendingCommandSnapshot>;
  /**
   * Snapshots every folder at the start of a turn. Nothing is recorded in the session: it takes the costly first
   * snapshot of a folder (every file read once) while the model thinks, so the turn's first command waits less.
   * Never rejects.
   */
  turnStarted(entryId: string, target: SnapshotTarget): Promise<void>;
}

/** The files the person saved in the editor (VS Code: workspace.onDidSaveTextDocument). */
export interface EditorSaves {
  /** Starts listening; the function returned gives the absolute paths saved since. */
  watch(): () => readonly string[];
}

export interface WorkspaceSnapshotOptions {
  /** The workspace folders, read at each command (folders can be added). */
  roots: () => readonly string[];
  /** False in Restricted Mode: then nothing is walked, read or stored. */
  isTrusted: () => boolean;
  /** The sessions folder: each workspace folder's stat index is kept in its `checkpoints/` (else in memory only). */
  sessionsDir?: string;
  caps?: SnapshotCaps;
  /** compactionAgent.tools.snapshotStoreMaxMegabytes in bytes, read at each snapshot (default: no cap). */
  storeCapBytes?: () => number;
  /** Removes blobs no session names (asked once when the store reaches its cap). */
  collect?: () => Promise<void>;
  /** Files saved in the editor during a command are the person's: named, never taken for the command's. */
  saves?: EditorSaves;
}

/** The command snapshots, and a way to write the stat indexes now (they are written shortly after each snapshot). */
export interface WorkspaceCommandSnapshots extends CommandSnapshots {
  flush(): Promise<void>;
}

/** An index is written this long after the snapshot that changed it (far less than BLOB_GRACE_MS: every blob it names stays young until then). */
const INDEX_WRITE_DELAY_MS = 30_000;

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The stat index file of one workspace folder: named by a hash of its path. */
export function indexFileOf(sessionsDir: string, folder: string): string {
  const key = createHash('sha256').update(folder).digest('hex').slice(0, 16);
  return nodePath.join(sessionsDir, SNAPSHOT_INDEX_DIR, `${key}${SNAPSHOT_INDEX_SUFFIX}`);
}

interface FolderState {
  index: Promise<StatIndex>;
  queue: Promise<unknown>;
  timer?: ReturnType<typeof setTimeout>;
}

type Taken = { folder: string; snapshot: FolderSnapshot } | { folder: string; unavailable: string };

/** A path as the platform compares them (case folded where file systems fold it). */
function comparable(path: string): string {
  const normal = nodePath.normalize(path);
  return process.platform === 'win32' || process.platform === 'darwin' ? normal.toLowerCase() : normal;
}

function refOf(state: FileState): BlobRef {
  return { sha256: state.sha256 || 'unrecorded', bytes: state.size, chars: state.size };
}

/** Why the content before a change is not kept, or undefined when it is (and is still in the store). */
async function missingBefore(state: FileState, store: ContentStore, maxBytes: number): Promise<string | undefined> {
  if (state.link) return 'it is a symbolic link';
  if (state.stored) return (store.keepSync?.(refOf(state)) ?? (await store.keep(refOf(state)))) ? undefined : 'its earlier content is no longer in the checkpoint store';
  if (state.size > maxBytes) return `at ${megabytes(state.size)} it is above compactionAgent.tools.snapshotMaxBytes (${megabytes(maxBytes)})`;
  return 'it could not be read';
}

interface Comparison {
  before: FolderSnapshot;
  after: FolderSnapshot;
  store: ContentStore;
  maxBytes: number;
  saved: ReadonlySet<string>;
}

/** The changes between two snapshots of one folder, in key order; each changed file is a FileChange or a note. */
async function folderChanges(comparison: Comparison, found: CommandChanges, savedShown: string[], seen: Set<string>): Promise<void> {
  const { before, after, store, maxBytes } = comparison;
  const changed: string[] = [];
  for (const [key, was] of before.files) {
    const now = after.files.get(key);
    if (now === was) continue;
    if (!now || was.link !== now.link || identityOf(was) !== identityOf(now)) changed.push(key);
  }
  for (const key of after.files.keys()) if (!before.files.has(key)) changed.push(key);
  for (const key of changed.sort()) {
    const was = before.files.get(key);
    const now = after.files.get(key);
    const shown = shownKey(key);
    const absolute = nodePath.join(before.folder, ...shown.split('/'));
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
      ...(exactPath ? { absoluteBytes: Buffer.concat([Buffer.from(before.folder, 'utf8'), Buffer.from(nodePath.sep), keyBytes(key)]).toString('base64') } : {}),
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

function gapOf(reasons: ReadonlyArray<{ folder: string; reason: string }>, several: boolean): string | undefined {
  const texts = reasons.map(({ folder, reason }) => (several && folder !== '' ? `${nodePath.basename(folder)}: ${reason}` : reason));
  return texts.length > 0 ? [...new Set(texts)].join('; ') : undefined;
}

/**
 * Command snapshots of every workspace folder, taken by this process alone: a walk of the folder that honours its
 * .gitignore files (the same rules before and after one command), a stat index so that an unchanged file is never
 * read again, and the bytes of new or changed files in the session's blob store. No program is started, nothing
 * of a repository's configuration, hooks or attributes is read, and nothing at all happens in Restricted Mode.
 */
export function workspaceCommandSnapshots(options: WorkspaceSnapshotOptions): WorkspaceCommandSnapshots {
  const folders = new Map<string, FolderState>();
  const budgets = new Map<string, StoreBudget>();
  const caps = options.caps ?? DEFAULT_SNAPSHOT_CAPS;
  const stateOf = (folder: string): FolderState => {
    let state = folders.get(folder);
    if (!state) {
      const sessionsDir = options.sessionsDir;
      state = { index: sessionsDir ? StatIndex.load(indexFileOf(sessionsDir, folder), folder) : Promise.resolve(new StatIndex()), queue: Promise.resolve() };
      folders.set(folder, state);
    }
    return state;
  };
  const budgetOf = (store: ContentStore): StoreBudget => {
    let budget = budgets.get(store.dir);
    if (!budget) {
      budget = new StoreBudget(store.dir, options.storeCapBytes ?? (() => Number.POSITIVE_INFINITY), options.collect);
      budgets.set(store.dir, budget);
      // Measured at once: what a killed snapshot left there (temp files) is removed at the first snapshot.
      void budget.prepare().catch(() => undefined);
    }
    return budget;
  };
  const writeIndex = async (folder: string): Promise<void> => {
    const state = folders.get(folder);
    if (!state || !options.sessionsDir) return;
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
    const index = await state.index;
    if (index.dirty) await index.save(indexFileOf(options.sessionsDir, folder), folder);
  };
  const scheduleIndexWrite = (folder: string): void => {
    const state = folders.get(folder);
    if (!state || !options.sessionsDir || state.timer) return;
    state.timer = setTimeout(() => void writeIndex(folder).catch(() => undefined), INDEX_WRITE_DELAY_MS);
    state.timer.unref?.();
  };
  /** Snapshots of one folder run one at a time (they share its index). */
  const snapshot = (folder: string, rules: FolderRules, store: ContentStore, maxBytes: number, signal?: AbortSignal): Promise<FolderSnapshot> => {
    const state = stateOf(folder);
    const run = state.queue.then(async () => {
      const taken = await takeFolderSnapshot(folder, await state.index, rules, { store, maxBytes, caps, budget: budgetOf(store), ...(signal ? { signal } : {}) });
      scheduleIndexWrite(folder);
      return taken;
    });
    state.queue = run.catch(() => undefined);
    return run;
  };
  const take = async (folder: string, rules: FolderRules, store: ContentStore, maxBytes: number, signal?: AbortSignal): Promise<Taken> => {
    try {
      return { folder, snapshot: await snapshot(folder, rules, store, maxBytes, signal) };
    } catch (error) {
      return { folder, unavailable: error instanceof SnapshotUnavailable ? error.message : `the snapshot failed (${messageOf(error)})` };
    }
  };
  return {
    async turnStarted(_entryId, target) {
      if (!options.isTrusted() || !isContentStore(target.store)) return;
      for (const folder of options.roots()) await take(folder, new FolderRules(), target.store, target.maxBytes);
    },
    async before(_label, target) {
      // Restricted Mode: no folder is walked or read (run_command is refused there anyway).
      if (!options.isTrusted()) return { after: () => Promise.resolve({ changes: [], notes: [] }) };
      const store = target.store;
      if (!isContentStore(store)) return { after: () => Promise.resolve({ changes: [], notes: [], gap: 'this session has no store for snapshots' }) };
      const savedSince = options.saves?.watch();
      const roots = [...options.roots()];
      const taken: Taken[] = [];
      for (const folder of roots) taken.push(await take(folder, new FolderRules(), store, target.maxBytes, target.signal));
      return {
        async after() {
          const found: CommandChanges = { changes: [], notes: [] };
          const reasons: Array<{ folder: string; reason: string }> = [];
          const saved = new Set((savedSince?.() ?? []).map(comparable));
          const savedShown: string[] = [];
          const seen = new Set<string>();
          for (const before of taken) {
            if ('unavailable' in before) {
              reasons.push({ folder: before.folder, reason: before.unavailable });
              continue;
            }
            // Judged by the rules the snapshot before the command was taken with, whatever the command did to them.
            const after = await take(before.folder, before.snapshot.rules, store, target.maxBytes);
            if ('unavailable' in after) {
              reasons.push({ folder: before.folder, reason: after.unavailable });
              continue;
            }
            try {
              await folderChanges({ before: before.snapshot, after: after.snapshot, store, maxBytes: target.maxBytes, saved }, found, savedShown, seen);
            } catch (error) {
              reasons.push({ folder: before.folder, reason: `the snapshots could not be compared (${messageOf(error)})` });
            }
          }
          if (savedShown.length > 0) reasons.push({ folder: '', reason: `saved in the editor while it ran, left as they are: ${savedShown.slice(0, 5).join(', ')}${savedShown.length > 5 ? ` and ${savedShown.length - 5} more` : ''}` });
          const gap = gapOf(reasons, roots.length > 1);
          return gap ? { ...found, gap } : found;
        },
      };
    },
    async flush() {
      for (const folder of folders.keys()) await writeIndex(folder);
    },
  };
}
