// index.json of a storage folder's sessions (title, file, times, thread key), written atomically and rebuilt when corrupt.
import * as nodePath from 'node:path';
import { errorCode, type FileIo } from '../storage/fileIo';
import { validateHeader } from './entryValidation';
import { parseLog, withoutBom } from './logParser';
import type { SessionHeader } from './entries';
import { sessionFileProblem } from './sessionFiles';
import { firstRequestTitle } from './sessionTitle';

export interface SessionRecord {
  id: string;
  title: string;
  /** File name relative to the storage folder. */
  file: string;
  createdAt: string;
  updatedAt: string;
  /** Opaque key the VS Code side uses to map a chat thread to its session. */
  threadKey?: string;
  /** Set on a delegated sub-task's session: the session whose agent started it. */
  parentId?: string;
  /** The session a hand-off started this one from (its header and first entry say so too). */
  handoffFrom?: string;
  /** The title is a stand-in until the session's first request with words names it (sessions started by /new or a hand-off). */
  untitled?: boolean;
}

const INDEX_FILE = 'index.json';

function isRecord(value: unknown): value is SessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    ['id', 'title', 'file', 'createdAt', 'updatedAt'].every((key) => typeof record[key] === 'string') &&
    sessionFileProblem(record.file as string) === undefined &&
    (record.threadKey === undefined || typeof record.threadKey === 'string') &&
    (record.parentId === undefined || typeof record.parentId === 'string') &&
    (record.handoffFrom === undefined || typeof record.handoffFrom === 'string') &&
    (record.untitled === undefined || typeof record.untitled === 'boolean')
  );
}

interface ParsedIndex {
  records: SessionRecord[];
  /** How many records were refused (malformed, or naming a file outside the sessions folder). */
  refused: number;
}

/** The index's records one by one: a refused record costs only itself (its session is listed again from its log file). */
function parseIndex(text: string): ParsedIndex | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const sessions = (value as { sessions?: unknown }).sessions;
    if (!Array.isArray(sessions)) return undefined;
    const records = sessions.filter(isRecord);
    return { records, refused: sessions.length - records.length };
  } catch {
    return undefined;
  }
}

/** A lock file older than this was left by a window that died while saving the index (a save takes milliseconds). */
const INDEX_LOCK_STALE_MS = 10_000;
/** How long a save waits for another window's save before it goes ahead anyway (the index is rebuilt from the files if need be). */
const INDEX_LOCK_WAIT_MS = 5_000;

/**
 * Two VS Code windows may share one storage folder (two windows with no folder open use the global storage),
 * each with its own copy of the index. A write therefore merges with what is on disk first: records the other
 * window added are kept, the newer of two copies of a record wins, a record is dropped only when this window
 * removed it or its log file is gone, and a log file no record names is listed again (the files are the truth).
 */
export class SessionIndexStore {
  private records = new Map<string, SessionRecord>();
  /** Ids this window removed: another window's copy must not bring them back. */
  private readonly removed = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly io: FileIo,
  ) {}

  get indexFile(): string {
    return nodePath.join(this.dir, INDEX_FILE);
  }

  /** Reads index.json; when it is missing or corrupt, rebuilds it from the session files present and says so. */
  async load(): Promise<{ sessions: SessionRecord[]; warnings: string[] }> {
    const warnings: string[] = [];
    let records: SessionRecord[] | undefined;
    let refused = 0;
    try {
      const parsed = parseIndex((await this.io.readFile(this.indexFile)).toString('utf8'));
      if (!parsed) warnings.push(`${this.indexFile} is corrupt; rebuilt it from the session files`);
      else if (parsed.refused > 0) warnings.push(`${this.indexFile} is partly corrupt; rebuilt ${parsed.refused} refused record${parsed.refused === 1 ? '' : 's'} from the session files (every other record is kept as it was)`);
      records = parsed?.records;
      refused = parsed?.refused ?? 0;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    if (!records) {
      records = await this.scan(warnings);
      this.records = new Map(records.map((record) => [record.id, record]));
      await this.save();
    }
    this.records = new Map(records.map((record) => [record.id, record]));
    // Logs no kept record names (a refused record's, say) are listed again from their headers.
    if (refused > 0) await this.save();
    return { sessions: this.list(), warnings };
  }

  /** Newest-updated first. */
  list(): SessionRecord[] {
    return [...this.records.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  get(id: string): SessionRecord | undefined {
    return this.records.get(id);
  }

  findByThreadKey(threadKey: string): SessionRecord | undefined {
    return this.list().find((record) => record.threadKey === threadKey);
  }

  /** Adds or replaces a record and writes the index atomically. */
  upsert(record: SessionRecord): Promise<void> {
    this.records.set(record.id, { ...record });
    return this.save();
  }

  remove(id: string): Promise<void> {
    this.records.delete(id);
    this.removed.add(id);
    return this.save();
  }

  /** Takes in what other windows wrote since (their new sessions, newer titles and times, their deletions). */
  refresh(): Promise<void> {
    const run = this.chain.then(() => this.mergeDisk());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes are serialized so an older snapshot never overwrites a newer one, and merged with the disk's first. The
   * read, merge and write run under a lock file shared with other windows: two windows saving at once (two
   * renames) would otherwise each write what they read before the other's write, and one rename would be lost.
   */
  private save(): Promise<void> {
    const run = this.chain.then(async () => {
      await this.io.mkdirp(this.dir);
      await this.underDiskLock(async () => {
        await this.mergeDisk();
        await this.io.writeFileAtomic(this.indexFile, `${JSON.stringify({ version: 1, sessions: this.list() }, null, 2)}\n`);
      });
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async underDiskLock(work: () => Promise<void>): Promise<void> {
    const lock = `${this.indexFile}.lock`;
    const deadline = Date.now() + INDEX_LOCK_WAIT_MS;
    let held = false;
    while (!held) {
      held = await this.io.createExclusive(lock, `${process.pid}`, { durable: false });
      if (held) break;
      const age = await this.io.stat(lock).then((stat) => Date.now() - stat.mtimeMs, () => 0);
      if (age > INDEX_LOCK_STALE_MS) await this.io.unlink(lock).catch(() => undefined);
      else if (Date.now() > deadline) break;
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    try {
      await work();
    } finally {
      if (held) await this.io.unlink(lock).catch(() => undefined);
    }
  }

  private async mergeDisk(): Promise<void> {
    let onDisk: SessionRecord[] | undefined;
    try {
      onDisk = parseIndex((await this.io.readFile(this.indexFile)).toString('utf8'))?.records;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    for (const record of onDisk ?? []) {
      if (this.removed.has(record.id)) continue;
      const mine = this.records.get(record.id);
      if (!mine || record.updatedAt > mine.updatedAt) this.records.set(record.id, record);
    }
    let names: Set<string>;
    try {
      names = new Set(await this.io.readdir(this.dir));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw error;
    }
    for (const [id, record] of this.records) if (!names.has(record.file)) this.records.delete(id);
    const listed = new Set([...this.records.values()].map((record) => record.file));
    const unlisted = [...names].filter((name) => !listed.has(name));
    for (const record of await this.scan([], unlisted)) {
      if (!this.removed.has(record.id) && !this.records.has(record.id)) this.records.set(record.id, record);
    }
  }

  private async scan(warnings: string[], only?: readonly string[]): Promise<SessionRecord[]> {
    let names: string[];
    try {
      names = only ? [...only] : await this.io.readdir(this.dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    const records: SessionRecord[] = [];
    for (const name of names.filter((file) => file.endsWith('.jsonl') && !file.endsWith('.quarantine.jsonl'))) {
      const path = nodePath.join(this.dir, name);
      try {
        const data = await this.io.readFile(path);
        const text = data.toString('utf8');
        const checked = validateHeader(JSON.parse(withoutBom(text.slice(0, text.indexOf('\n')))) as unknown);
        if ('error' in checked) throw new Error(checked.error);
        const { mtimeMs } = await this.io.stat(path);
        const header = checked.header;
        records.push({
          id: header.id,
          file: name,
          createdAt: header.timestamp,
          updatedAt: new Date(mtimeMs).toISOString(),
          ...scannedTitle(header, data),
          ...(header.parent ? { parentId: header.parent.sessionId } : {}),
          ...(typeof header.handoffFrom?.sessionId === 'string' ? { handoffFrom: header.handoffFrom.sessionId } : {}),
        });
      } catch (error) {
        warnings.push(`skipped ${name} while rebuilding the index: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return records;
  }
}

/**
 * The title of a session found without a record: its header's (a title given at creation), else its first request's
 * (a session started by /new or a hand-off is named by it), else its id, marked untitled so its first request names it.
 */
function scannedTitle(header: SessionHeader, data: Buffer): { title: string; untitled?: boolean } {
  if (header.title) return { title: header.title };
  let fromRequest: string | undefined;
  try {
    fromRequest = firstRequestTitle(parseLog(data).entries);
  } catch {
    fromRequest = undefined;
  }
  return fromRequest ? { title: fromRequest } : { title: header.id, untitled: true };
}
