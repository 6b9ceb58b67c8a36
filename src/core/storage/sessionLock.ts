// Exclusive per-session lock file so two windows never interleave lines in one log; stale locks are taken over.
import * as os from 'node:os';
import { randomUUID } from 'node:crypto';
import { errorCode, type FileIo } from './fileIo';

interface LockRecord {
  pid: number;
  host: string;
  /** Epoch ms of the last heartbeat. */
  time: number;
  token: string;
}

export interface LockOptions {
  /** A lock not refreshed for this long is stale even if its pid looks alive (pid reuse, other host). */
  staleAfterMs?: number;
  /** How often the holder refreshes its lock; well under staleAfterMs. */
  heartbeatMs?: number;
  now?: () => number;
  hostname?: string;
  pid?: number;
  isPidAlive?: (pid: number) => boolean;
}

/** Twelve random hex digits that tell this holder from any other: from a v4 UUID, whose generator draws entropy in batches (randomBytes asks the system each time). */
function lockToken(): string {
  return randomUUID().replaceAll('-', '').slice(0, 12);
}

export class SessionLockedError extends Error {
  constructor(
    readonly sessionId: string,
    readonly holderPid: number,
  ) {
    super(`session ${sessionId} is open in another window (pid ${holderPid})`);
    this.name = 'SessionLockedError';
  }
}

/** The lock was taken over (its heartbeat looked stale, e.g. while this machine slept): this writer must stop. */
export class SessionLockLostError extends Error {
  constructor(
    readonly sessionId: string,
    readonly holderPid: number | undefined,
  ) {
    const holder = holderPid === undefined ? 'another window' : `another window (pid ${holderPid})`;
    super(`session ${sessionId} was taken over by ${holder} while this one was inactive; it is read-only here now, so nothing more is written from this window. Continue it in that window, or close it there and reload this one`);
    this.name = 'SessionLockLostError';
  }
}

export function isPidAliveOnThisHost(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) === 'EPERM';
  }
}

function parseLock(text: string): LockRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    if (typeof record.pid !== 'number' || typeof record.host !== 'string' || typeof record.time !== 'number') return undefined;
    return { pid: record.pid, host: record.host, time: record.time, token: typeof record.token === 'string' ? record.token : '' };
  } catch {
    return undefined;
  }
}

/** How long a lock file that cannot be read yet is taken to be one another process is still writing. */
const WRITING_GRACE_MS = 2_000;
/** A takeover file older than this was left by a process that died while taking a stale lock over. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Whether a live holder has the lock at `path` now (judged as acquire judges it: a holder on this host whose process
 * is gone, or whose heartbeat is older than staleAfterMs, is not live), without taking it. A lock file that cannot be
 * read counts as held while it is young (another process may be writing it), as acquire counts it.
 */
export async function isLockHeld(path: string, io: FileIo, options: LockOptions = {}): Promise<boolean> {
  const now = options.now ?? Date.now;
  const host = options.hostname ?? os.hostname();
  const isAlive = options.isPidAlive ?? isPidAliveOnThisHost;
  let text: string;
  try {
    text = (await io.readFile(path)).toString('utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
  const holder = parseLock(text);
  if (!holder) return io.stat(path).then((stat) => Date.now() - stat.mtimeMs <= WRITING_GRACE_MS, () => false);
  if (holder.host === host && !isAlive(holder.pid)) return false;
  return now() - holder.time <= (options.staleAfterMs ?? 60_000);
}

export class SessionLock {
  private timer: ReturnType<typeof setInterval> | undefined;
  private released = false;
  private lostTo: SessionLockLostError | undefined;

  private constructor(
    readonly path: string,
    private sessionId: string,
    private readonly io: FileIo,
    private readonly record: LockRecord,
    private readonly now: () => number,
    /** A heartbeat older than this means this process did not run for a while (asleep, suspended). */
    private readonly lateAfterMs: number,
  ) {}

  /** Names the session in later messages, once its header is read (a log is locked before it is read). */
  identify(sessionId: string): void {
    this.sessionId = sessionId;
  }

  /** Set once another process has taken the lock over; this holder must not write again. */
  get lost(): SessionLockLostError | undefined {
    return this.lostTo;
  }

  /** Takes the lock or rejects with SessionLockedError naming the live holder. */
  static async acquire(path: string, sessionId: string, io: FileIo, options: LockOptions = {}): Promise<SessionLock> {
    const now = options.now ?? Date.now;
    const staleAfterMs = options.staleAfterMs ?? 60_000;
    const host = options.hostname ?? os.hostname();
    const isAlive = options.isPidAlive ?? isPidAliveOnThisHost;
    const heartbeatMs = options.heartbeatMs ?? Math.floor(staleAfterMs / 4);
    const record: LockRecord = { pid: options.pid ?? process.pid, host, time: now(), token: lockToken() };
    for (let attempt = 0; attempt < 40; attempt++) {
      if (await io.createExclusive(path, JSON.stringify(record), { durable: false })) {
        const lock = new SessionLock(path, sessionId, io, record, now, Math.floor(staleAfterMs / 2));
        lock.startHeartbeat(heartbeatMs);
        return lock;
      }
      const holder = await SessionLock.settledHolder(path, io);
      if (holder) {
        const deadHere = holder.host === host && !isAlive(holder.pid);
        const expired = now() - holder.time > staleAfterMs;
        if (!deadHere && !expired) throw new SessionLockedError(sessionId, holder.pid);
      }
      // Stale or unreadable (a crash while writing it): removed by one contender at a time, and only if it is still
      // the lock judged stale (another contender may have replaced it with a live one meanwhile).
      await SessionLock.removeStale(path, io, holder, record);
    }
    throw new Error(`could not take the lock ${path}`);
  }

  /**
   * Removes the stale lock `judged` (undefined: an unreadable one) under a takeover file of its own, created O_EXCL:
   * a contender that finds the takeover file waits for it instead, so a live lock written by the winner is never
   * removed by a second contender that judged the old one stale (two holders).
   */
  private static async removeStale(path: string, io: FileIo, judged: LockRecord | undefined, mine: LockRecord): Promise<void> {
    const takeover = `${path}.takeover`;
    if (!(await io.createExclusive(takeover, JSON.stringify(mine), { durable: false }))) {
      // A takeover left by a process that died in it (it takes milliseconds) is removed; otherwise wait for it.
      const age = await io.stat(takeover).then((stat) => Date.now() - stat.mtimeMs, () => 0);
      if (age > TAKEOVER_STALE_MS) await io.unlink(takeover).catch(() => undefined);
      else await new Promise((resolve) => setTimeout(resolve, 25));
      return;
    }
    try {
      // A lock file that cannot be read yet may be one a contender is still writing: settledHolder waits for it.
      const current = await SessionLock.settledHolder(path, io);
      const same = judged === undefined ? current === undefined : current !== undefined && current.token === judged.token && current.time === judged.time && current.pid === judged.pid;
      if (!same) return;
      try {
        await io.unlink(path);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    } finally {
      await io.unlink(takeover).catch(() => undefined);
    }
  }

  /**
   * The holder of a lock another process holds. Creating a lock opens the file and then writes it, so a contender
   * can find it empty for a moment: a lock file that cannot be read is read again while it is younger than
   * WRITING_GRACE_MS, and only an older one is stale (a crash while writing it).
   */
  private static async settledHolder(path: string, io: FileIo): Promise<LockRecord | undefined> {
    const deadline = Date.now() + WRITING_GRACE_MS;
    for (;;) {
      const holder = await SessionLock.readHolder(path, io);
      if (holder) return holder;
      let modified: number;
      try {
        modified = (await io.stat(path)).mtimeMs;
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return undefined;
        throw error;
      }
      if (Date.now() - modified > WRITING_GRACE_MS || Date.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private static async readHolder(path: string, io: FileIo): Promise<LockRecord | undefined> {
    try {
      return parseLock((await io.readFile(path)).toString('utf8'));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  private startHeartbeat(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.refresh().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /** Rewrites the heartbeat time, but only while the lock is still ours; notes it when it is not any more. */
  async refresh(): Promise<void> {
    if (this.released || this.lostTo) return;
    const holder = await SessionLock.readHolder(this.path, this.io);
    if (!holder || holder.token !== this.record.token) {
      this.markLost(holder);
      return;
    }
    this.record.time = this.now();
    await this.io.writeFileAtomic(this.path, JSON.stringify(this.record));
  }

  /**
   * Confirms, right before a write, that the lock file still holds this writer's token. Rejects with
   * SessionLockLostError when another process took it over (for good: the holder stays read-only). When this
   * process's own heartbeat is late (it slept), the lock is renewed and checked again before the write goes
   * ahead, which narrows the window in which a contender could still be taking it over.
   */
  async ensureHeld(): Promise<void> {
    if (this.lostTo) throw this.lostTo;
    if (this.released) throw new Error(`the lock of session ${this.sessionId} was released`);
    const holder = await SessionLock.readHolder(this.path, this.io);
    if (!holder || holder.token !== this.record.token) throw this.markLost(holder);
    if (this.now() - this.record.time <= this.lateAfterMs) return;
    await this.refresh();
    const again = await SessionLock.readHolder(this.path, this.io);
    if (!again || again.token !== this.record.token) throw this.markLost(again);
  }

  private markLost(holder: LockRecord | undefined): SessionLockLostError {
    this.lostTo ??= new SessionLockLostError(this.sessionId, holder?.pid);
    if (this.timer) clearInterval(this.timer);
    return this.lostTo;
  }

  /** Removes the lock file if it is still ours; safe to call twice. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.timer) clearInterval(this.timer);
    const holder = await SessionLock.readHolder(this.path, this.io);
    if (holder && holder.token === this.record.token) {
      try {
        await this.io.unlink(this.path);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    }
  }
}
