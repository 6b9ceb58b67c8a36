// A file-backed session: crash-safe appends (one write + fsync per entry), recovery on load, one writer at a time.
import * as nodePath from 'node:path';
import { BlobStore } from '../storage/blobStore';
import { errorCode, nodeFileIo, type FileIo } from '../storage/fileIo';
import { SessionLock, SessionLockedError, type LockOptions } from '../storage/sessionLock';
import { SCHEMA_VERSION, type LeafEntry, type SessionEntry, type SessionHeader } from './entries';
import { validateEntry } from './entryValidation';
import { formatLine, parseLog, SessionReadError, type ParsedLog } from './logParser';
import type { Migration } from './migrations';
import { newEntryId, type NewEntry } from './newEntry';
import { quarantineLines } from './quarantine';
import { withReattachNotes } from './reattachNotes';
import { SessionTree } from './sessionTree';

export interface SessionLogOptions {
  io?: FileIo;
  /** Load without locking or repairing; append() rejects. */
  readOnly?: boolean;
  /** Default: `blobs/` beside the log file. */
  blobDir?: string;
  /** Lock tuning, or false to skip the lock (single-process tools such as the CLI importer writing a new file). */
  lock?: LockOptions | false;
  now?: () => Date;
  migrations?: Readonly<Record<number, Migration>>;
}

/** What loading found and set aside (read-only opens leave it in the file; writable opens move it to quarantine). */
export interface LoadDamage {
  tornBytes: number;
  corruptLines: number;
}

export type HeaderFields = Partial<Omit<SessionHeader, 'type' | 'version'>>;

export function lockPath(file: string): string {
  return `${file.replace(/\.jsonl$/, '')}.lock`;
}

async function readSessionFile(io: FileIo, file: string): Promise<Buffer> {
  try {
    return await io.readFile(file);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw new SessionReadError(`session file not found: ${file}`);
    throw new SessionReadError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The log's lock, taken before the log is read. A log another window holds is named by its header's id (read only
 * then); the file's name stands in for it until the header is read.
 */
async function lockForOpen(io: FileIo, file: string, options: LockOptions): Promise<SessionLock> {
  try {
    return await SessionLock.acquire(lockPath(file), nodePath.basename(file, '.jsonl'), io, options);
  } catch (error) {
    // A missing log is named as such, not as a lock file that could not be created beside it.
    const data = await readSessionFile(io, file);
    if (!(error instanceof SessionLockedError)) throw error;
    let id = error.sessionId;
    try {
      // The header line alone: a window that waits for the lock asks again and again.
      id = parseLog(data.subarray(0, data.indexOf(0x0a) + 1), file).header.id;
    } catch {
      // Not a session log: the lock's holder is named by the file's name.
    }
    throw new SessionLockedError(id, error.holderPid);
  }
}

export class SessionLog {
  readonly tree: SessionTree;
  readonly blobs: BlobStore;
  private chain: Promise<unknown> = Promise.resolve();
  private needsRepair = false;
  private closed = false;
  private readonly listeners = new Set<(entry: SessionEntry) => void>();

  private constructor(
    readonly file: string,
    readonly header: SessionHeader,
    parsed: ParsedLog,
    private committedBytes: number,
    private readonly io: FileIo,
    private readonly lock: SessionLock | undefined,
    private readonly openedReadOnly: boolean,
    blobDir: string,
    private readonly now: () => Date,
  ) {
    this.tree = SessionTree.ofUniqueIds(parsed.entries, parsed.positions);
    this.blobs = new BlobStore(blobDir, io);
  }

  /** Loads a log; damaged lines become warnings (and, when writable, go to quarantine) instead of errors. */
  static async open(file: string, options: SessionLogOptions = {}): Promise<{ log: SessionLog; warnings: string[]; damage: LoadDamage }> {
    const io = options.io ?? nodeFileIo;
    const now = options.now ?? (() => new Date());
    // Locked before it is read, so it is read once: nothing another window wrote before letting go is missed.
    let lock: SessionLock | undefined;
    if (!options.readOnly && options.lock !== false) lock = await lockForOpen(io, file, options.lock ?? {});
    let parsed: ParsedLog;
    try {
      parsed = parseLog(await readSessionFile(io, file), file, options.migrations);
    } catch (error) {
      await lock?.release();
      throw error;
    }
    lock?.identify(parsed.header.id);
    try {
      const committed = options.readOnly ? parsed.committedBytes : await SessionLog.repair(io, file, parsed, now());
      const blobDir = options.blobDir ?? nodePath.join(nodePath.dirname(file), 'blobs');
      const log = new SessionLog(file, parsed.header, parsed, committed, io, lock, options.readOnly ?? false, blobDir, now);
      const damage = { tornBytes: parsed.torn?.raw.length ?? 0, corruptLines: parsed.corrupt.length };
      return { log, warnings: withReattachNotes(parsed, log.tree.reattachments(), file), damage };
    } catch (error) {
      await lock?.release();
      throw error;
    }
  }

  /** Creates a new log with only its header; rejects if the file exists. */
  static async create(file: string, fields: HeaderFields = {}, options: SessionLogOptions = {}): Promise<SessionLog> {
    const io = options.io ?? nodeFileIo;
    const now = options.now ?? (() => new Date());
    const header: SessionHeader = { type: 'session', version: SCHEMA_VERSION, id: fields.id ?? newEntryId(), timestamp: now().toISOString(), ...fields };
    await io.mkdirp(nodePath.dirname(file));
    if (!(await io.createExclusive(file, formatLine(header)))) throw new Error(`session file already exists: ${file}`);
    const { log } = await SessionLog.open(file, { ...options, readOnly: false });
    return log;
  }

  /** Moves damaged lines to quarantine and leaves the file equal to its committed, valid content. */
  private static async repair(io: FileIo, file: string, parsed: ParsedLog, now: Date): Promise<number> {
    const bad = parsed.torn ? [...parsed.corrupt, parsed.torn] : parsed.corrupt;
    await quarantineLines(io, file, bad, now);
    if (parsed.fileVersion !== SCHEMA_VERSION) {
      // Keep the old file as it was, then replace the log with its migrated form in one atomic step.
      await io.writeFileAtomic(`${file}.v${parsed.fileVersion}.bak`, await io.readFile(file));
      const text = [parsed.header, ...parsed.entries].map(formatLine).join('');
      await io.writeFileAtomic(file, text);
      return Buffer.byteLength(text, 'utf8');
    }
    if (parsed.corrupt.length > 0) {
      await io.writeFileAtomic(file, parsed.cleanBytes);
      return parsed.cleanBytes.length;
    }
    if (parsed.torn) await io.truncate(file, parsed.committedBytes);
    return parsed.committedBytes;
  }

  get leafId(): string | null {
    return this.tree.leafId;
  }

  /** Opened read-only, or another window took the lock over since (see readOnlyReason). */
  get readOnly(): boolean {
    return this.openedReadOnly || this.lock?.lost !== undefined;
  }

  /** Why appends are refused, when they are. */
  get readOnlyReason(): string | undefined {
    if (this.lock?.lost) return this.lock.lost.message;
    return this.openedReadOnly ? `session ${this.header.id} is open read-only` : undefined;
  }

  /** Root→current-leaf entries. */
  path(): readonly SessionEntry[] {
    return this.tree.pathTo(this.tree.leafId);
  }

  /** Called after every committed append (in commit order). Returns an unsubscribe function. */
  onAppend(listener: (entry: SessionEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Appends a child of the current leaf; resolves after the line is fsynced. Calls are serialized. */
  append(fields: NewEntry): Promise<SessionEntry> {
    return this.enqueue(() => {
      const { id, timestamp, ...rest } = fields;
      return { ...rest, id: id ?? this.freshId(), timestamp: timestamp ?? this.now().toISOString() } as SessionEntry;
    });
  }

  /** Makes `targetId` the current leaf (the next append forks a branch there). */
  moveLeaf(targetId: string, reason: LeafEntry['reason'] = 'switch'): Promise<SessionEntry> {
    return this.enqueue(() => {
      if (!this.tree.isNode(targetId)) throw new Error(`cannot move the leaf to ${targetId}: no such entry`);
      const entry: LeafEntry = { type: 'leaf', id: this.freshId(), parentId: null, timestamp: this.now().toISOString(), targetId, reason };
      return entry;
    });
  }

  /** Moves the leaf to the compaction's parent: the context before that compaction, both branches kept. */
  restoreBeforeCompaction(compactionId: string): Promise<SessionEntry> {
    const compaction = this.tree.get(compactionId);
    if (compaction?.type !== 'compaction') return Promise.reject(new Error(`${compactionId} is not a compaction entry`));
    // The node it hangs from, which is not its parentId when that line was damaged and it was reattached.
    const parent = this.tree.parentOfNode(compactionId);
    if (!parent) return Promise.reject(new Error(`compaction ${compactionId} has no earlier state`));
    return this.moveLeaf(parent.id, 'restore');
  }

  /** Waits for pending appends, then releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain.catch(() => undefined);
    await this.lock?.release();
  }

  private freshId(): string {
    let id = newEntryId();
    while (this.tree.has(id)) id = newEntryId();
    return id;
  }

  private enqueue(build: () => SessionEntry): Promise<SessionEntry> {
    const run = this.chain.then(() => this.write(build));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async write(build: () => SessionEntry): Promise<SessionEntry> {
    if (this.lock?.lost) throw this.lock.lost;
    if (this.openedReadOnly) throw new Error(`session ${this.header.id} is open read-only`);
    if (this.closed) throw new Error(`session ${this.header.id} is closed`);
    // Another window may have taken the lock over while this one slept: then it must not write a byte.
    await this.lock?.ensureHeld();
    if (this.needsRepair) await this.repairTail();
    const entry = { ...build(), parentId: this.tree.leafId };
    if (entry.type === 'leaf' && this.tree.leafId === null) throw new Error('cannot move the leaf of an empty session');
    const checked = validateEntry(entry);
    if ('error' in checked) throw new Error(`invalid entry: ${checked.error}`);
    if (this.tree.has(entry.id)) throw new Error(`duplicate entry id ${entry.id}`);
    const line = formatLine(checked.entry);
    try {
      await this.io.appendDurable(this.file, line);
    } catch (error) {
      // Part of the line may be on disk; the next append first cuts the file back to the committed prefix.
      this.needsRepair = true;
      throw error;
    }
    this.committedBytes += Buffer.byteLength(line, 'utf8');
    this.tree.add(checked.entry);
    for (const listener of this.listeners) listener(checked.entry);
    return checked.entry;
  }

  /** After a failed append: quarantine whatever bytes it left and truncate to the committed prefix. */
  private async repairTail(): Promise<void> {
    const data = await this.io.readFile(this.file);
    if (data.length < this.committedBytes) throw new Error(`${this.file} is shorter than its committed content; reopen the session`);
    if (data.length > this.committedBytes) {
      const raw = data.subarray(this.committedBytes);
      await quarantineLines(this.io, this.file, [{ line: 0, offset: this.committedBytes, raw, reason: 'bytes of a failed append' }], this.now());
      await this.io.truncate(this.file, this.committedBytes);
    }
    this.needsRepair = false;
  }
}
