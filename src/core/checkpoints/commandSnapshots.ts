// What a command changed in the workspace: a snapshot of every folder before and after it (our own walk, no program started), turned into restorable file changes.
import { createHash } from 'node:crypto';
import * as nodePath from 'node:path';
import { SNAPSHOT_INDEX_DIR, SNAPSHOT_INDEX_SUFFIX } from '../storage/blobCollector';
import { DEFAULT_SNAPSHOT_CAPS, SnapshotUnavailable, takeFolderSnapshot, type FolderSnapshot, type SnapshotCaps } from './folderSnapshot';
import { FolderWatch } from './folderWatch';
import { FolderRules } from './ignoreFiles';
import { comparable, folderChanges, type CommandChanges } from './snapshotChanges';
import { isContentStore, type ContentStore, type SnapshotStore } from './snapshotStore';
import { StatIndex, type IndexChange, type IndexMark } from './statIndex';
import { StoreBudget } from './storeBudget';

export type { CommandChanges } from './snapshotChanges';

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
  /** False: no folder watch, every snapshot looks at every file (as on platforms without one; the bench compares both). */
  watchFolders?: boolean;
}

/** The command snapshots, and a way to write the stat indexes now (they are written shortly after each snapshot). */
export interface WorkspaceCommandSnapshots extends CommandSnapshots {
  flush(): Promise<void>;
  /** Writes the stat indexes and closes every folder watch. */
  dispose(): Promise<void>;
}

/** An index is written this long after the snapshot that changed it (far less than BLOB_GRACE_MS: every blob it names stays young until then). */
const INDEX_WRITE_DELAY_MS = 30_000;

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
  /** Which folders changed since the last snapshot (undefined where the platform or file system cannot tell). */
  watch: FolderWatch | undefined;
  /** The .gitignore rules the last snapshot before a command (or at a turn) read, for the next one to look only where the watch says. */
  rules?: FolderRules;
  /** Every snapshot since the last full walk saw every folder and completed: the index and the watch cover the folder. */
  complete: boolean;
}

/**
 * How a snapshot is taken: at a turn's start (every file, .gitignore files read), before a command (only the folders
 * the watch names when it can vouch for the rest, else as at a turn), after a command (every file, by the rules from
 * before it).
 */
type SnapshotKind = 'turn' | 'before' | 'after';

/** A snapshot taken before a command, with the mark in its folder's index that the snapshot after it is compared with. */
type Taken = { folder: string; snapshot: FolderSnapshot; index: StatIndex; mark: IndexMark } | { folder: string; unavailable: string };

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
      state = { index: sessionsDir ? StatIndex.load(indexFileOf(sessionsDir, folder), folder) : Promise.resolve(new StatIndex()), queue: Promise.resolve(), watch: options.watchFolders === false ? undefined : FolderWatch.of(folder), complete: false };
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
  /**
   * Snapshots of one folder run one at a time (they share its index). `then` runs in the same turn of the queue,
   * before any other snapshot of the folder can change the index.
   */
  const snapshot = <T>(kind: SnapshotKind, folder: string, rules: FolderRules, store: ContentStore, maxBytes: number, signal: AbortSignal | undefined, then: (index: StatIndex, taken: FolderSnapshot) => T): Promise<T> => {
    const state = stateOf(folder);
    const run = state.queue.then(async () => {
      const index = await state.index;
      const { watch } = state;
      let changed: ReadonlySet<string> | undefined;
      if (kind === 'before' && watch && state.complete && state.rules) changed = await watch.changed();
      else if (kind !== 'after') await watch?.reset();
      const complete = state.complete;
      state.complete = false;
      try {
        const context = { store, maxBytes, caps, budget: budgetOf(store), ...(signal ? { signal } : {}), ...(watch ? { watch } : {}) };
        const taken = await takeFolderSnapshot(folder, index, changed && state.rules ? state.rules : rules, context, changed);
        if (kind !== 'after') state.rules = taken.rules;
        state.complete = taken.partial ? complete : taken.unreadable.length === 0;
        return then(index, taken);
      } finally {
        scheduleIndexWrite(folder);
      }
    });
    state.queue = run.catch(() => undefined);
    return run;
  };
  const unavailable = (folder: string, error: unknown): { folder: string; unavailable: string } => ({
    folder,
    unavailable: error instanceof SnapshotUnavailable ? error.message : `the snapshot failed (${messageOf(error)})`,
  });
  /** The snapshot before a command: the folder's index is marked where it ends, so the one after sees what changed since. */
  const takeBefore = async (folder: string, store: ContentStore, maxBytes: number, signal?: AbortSignal): Promise<Taken> => {
    try {
      return await snapshot('before', folder, new FolderRules(), store, maxBytes, signal, (index, taken) => ({ folder, snapshot: taken, index, mark: index.mark() }));
    } catch (error) {
      return unavailable(folder, error);
    }
  };
  /** The snapshot after a command, judged by the rules of the one before it: what the index took since its mark. */
  const takeAfter = async (before: Extract<Taken, { mark: IndexMark }>, store: ContentStore, maxBytes: number): Promise<{ after: FolderSnapshot; changes: IndexChange[] } | { unavailable: string }> => {
    try {
      return await snapshot('after', before.folder, before.snapshot.rules, store, maxBytes, undefined, (index, after) => {
        const changes = index.changesSince(before.mark);
        if (!changes) throw new SnapshotUnavailable('the folder changed too much while the command ran to compare its snapshots');
        return { after, changes };
      });
    } catch (error) {
      return unavailable(before.folder, error);
    } finally {
      before.index.release(before.mark);
    }
  };
  return {
    async turnStarted(_entryId, target) {
      if (!options.isTrusted() || !isContentStore(target.store)) return;
      const store = target.store;
      for (const folder of options.roots()) await snapshot('turn', folder, new FolderRules(), store, target.maxBytes, undefined, () => undefined).catch(() => undefined);
    },
    async before(_label, target) {
      // Restricted Mode: no folder is walked or read (run_command is refused there anyway).
      if (!options.isTrusted()) return { after: () => Promise.resolve({ changes: [], notes: [] }) };
      const store = target.store;
      if (!isContentStore(store)) return { after: () => Promise.resolve({ changes: [], notes: [], gap: 'this session has no store for snapshots' }) };
      const savedSince = options.saves?.watch();
      const roots = [...options.roots()];
      const taken: Taken[] = [];
      for (const folder of roots) taken.push(await takeBefore(folder, store, target.maxBytes, target.signal));
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
            const after = await takeAfter(before, store, target.maxBytes);
            if ('unavailable' in after) {
              reasons.push({ folder: before.folder, reason: after.unavailable });
              continue;
            }
            try {
              await folderChanges({ folder: before.folder, changes: after.changes, after: after.after, store, maxBytes: target.maxBytes, saved }, found, savedShown, seen);
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
    async dispose() {
      for (const state of folders.values()) state.watch?.stop();
      for (const folder of folders.keys()) await writeIndex(folder);
    },
  };
}
