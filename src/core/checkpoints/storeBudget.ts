// The cap on the blob store's size that command snapshots respect (compactionAgent.tools.snapshotStoreMaxMegabytes): measured once, then counted.
import { readdir, rm, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';

/** A measurement older than this is taken again (another window may have stored or collected meanwhile). */
const REMEASURE_MS = 5 * 60 * 1000;
/** Collections asked for when the cap is reached are at least this far apart. */
const COLLECT_EVERY_MS = 60 * 1000;

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024).toLocaleString('en-US')} MB`;
}

/** A temp file a blob write goes through (tempPathBeside(blob, `${pid}.tmp`)): named after the process writing it. */
const TEMP_FILE = /\.(\d+)\.tmp$/;
/** A temp file this old is a leftover whoever wrote it: no blob write takes an hour. */
const TEMP_STALE_MS = 60 * 60 * 1000;

/** True while a process with this id runs (signal 0 only asks; EPERM: it runs, as another user). */
function running(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The total size of the blobs in `dir` (0 when it does not exist). Temp files are not blobs: never counted, and
 * those left by a writer that is gone (killed mid-write, say) or older than an hour are removed.
 */
export async function folderBytes(dir: string, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let total = 0;
  for (let start = 0; start < names.length; start += 64) {
    const sizes = await Promise.all(
      names.slice(start, start + 64).map(async (name) => {
        const path = nodePath.join(dir, name);
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile()) return 0;
        const writer = TEMP_FILE.exec(name)?.[1];
        if (writer === undefined) return info.size;
        if (!running(Number(writer)) || now - info.mtimeMs > TEMP_STALE_MS) await rm(path, { force: true }).catch(() => undefined);
        return 0;
      }),
    );
    for (const size of sizes) total += size;
  }
  return total;
}

export class StoreBudget {
  private used: number | undefined;
  private measuredAt = 0;
  private collectedAt = Number.NEGATIVE_INFINITY;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dir: string,
    /** The cap in bytes, read at each reservation (a setting). */
    private readonly capBytes: () => number,
    /** Removes what no session names any more (the blob collector); asked once when the cap is reached. */
    private readonly collect?: () => Promise<void>,
  ) {}

  /** The store's size, measured again when the last measurement is old (the first one also removes leftover temp files). */
  private async measured(): Promise<number> {
    if (this.used === undefined || Date.now() - this.measuredAt > REMEASURE_MS) {
      this.used = await folderBytes(this.dir);
      this.measuredAt = Date.now();
    }
    return this.used;
  }

  /** Counts `bytes` about to be stored; false (nothing counted) when they would take the store above its cap. One at a time. */
  reserve(bytes: number): Promise<boolean> {
    const run = this.chain.then(() => this.reserveNow(bytes));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async reserveNow(bytes: number): Promise<boolean> {
    const cap = this.capBytes();
    if ((await this.measured()) + bytes <= cap) {
      this.used = (this.used ?? 0) + bytes;
      return true;
    }
    if (!this.collect || Date.now() - this.collectedAt < COLLECT_EVERY_MS) return false;
    this.collectedAt = Date.now();
    await this.collect().catch(() => undefined);
    this.used = undefined;
    if ((await this.measured()) + bytes > cap) return false;
    this.used = (this.used ?? 0) + bytes;
    return true;
  }

  /** Measures the store now unless a recent measurement stands (so tryReserve can count without waiting). */
  async prepare(): Promise<void> {
    await this.chain;
    await this.measured();
  }

  /** reserve without waiting, from the last measurement: false when the bytes do not fit (reserve may still make room). */
  tryReserve(bytes: number): boolean {
    if (this.used === undefined || this.used + bytes > this.capBytes()) return false;
    this.used += bytes;
    return true;
  }

  /** The bytes the store holds, as last measured and counted since. */
  async usedBytes(): Promise<number> {
    return this.measured();
  }

  /** Why a snapshot stopped at the cap, in words for the picker and the tool result. */
  fullReason(): string {
    return `the checkpoint store is full (${megabytes(this.used ?? 0)} of the ${megabytes(this.capBytes())} that compactionAgent.tools.snapshotStoreMaxMegabytes allows); delete old sessions or raise the setting`;
  }
}
