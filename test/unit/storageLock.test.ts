// The per-session lock: a second writer gets a clear message, stale locks (dead pid, expired heartbeat) are taken over.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockPath, SessionLog } from '../../src/core/session/sessionLog';
import { isLockHeld, SessionLock, SessionLockedError, SessionLockLostError } from '../../src/core/storage/sessionLock';
import { nodeFileIo, type FileIo } from '../../src/core/storage/fileIo';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
let file: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  file = nodePath.join(dir, 'abc.jsonl');
});
afterEach(() => cleanup());

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
  return child.pid ?? 999_999;
}

describe('session lock', () => {
  it('refuses a second writer with a clear message but allows read-only opening', async () => {
    const first = await SessionLog.create(file, { id: 'abc' });
    await expect(SessionLog.open(file)).rejects.toThrow(`session abc is open in another window (pid ${process.pid})`);
    const { log: reader } = await SessionLog.open(file, { readOnly: true });
    expect(reader.header.id).toBe('abc');
    await first.close();
    expect(existsSync(lockPath(file))).toBe(false);
    const { log: second } = await SessionLog.open(file);
    await second.append({ type: 'user', text: 'mine now' });
    await second.close();
  });

  it('a log locked before it is read: the refusal and the takeover name the header id, not the file name', async () => {
    const named = nodePath.join(dir, 'file-name.jsonl');
    let now = 1_000_000;
    const lock = { now: () => now, staleAfterMs: 60_000, heartbeatMs: 0 };
    const first = await SessionLog.create(named, { id: 'the-header-id' }, { lock });
    await expect(SessionLog.open(named, { lock })).rejects.toThrow(`session the-header-id is open in another window (pid ${process.pid})`);
    now += 61_000;
    const { log: second } = await SessionLog.open(named, { lock });
    const error: unknown = await first.append({ type: 'user', text: 'must not land' }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^session the-header-id was taken over/);
    await first.close();
    await second.close();
  });

  it('a missing or unreadable log leaves no lock behind, and a line written before the last holder let go is read', async () => {
    await expect(SessionLog.open(nodePath.join(dir, 'missing.jsonl'))).rejects.toThrow(/session file not found/);
    expect(existsSync(lockPath(nodePath.join(dir, 'missing.jsonl')))).toBe(false);
    const junk = nodePath.join(dir, 'junk.jsonl');
    writeFileSync(junk, 'not a session\n');
    await expect(SessionLog.open(junk)).rejects.toThrow(/not a session log/);
    expect(existsSync(lockPath(junk))).toBe(false);
    const first = await SessionLog.create(file, { id: 'abc' });
    const last = await first.append({ type: 'user', text: 'written just before letting go' });
    await first.close();
    const { log: second } = await SessionLog.open(file);
    expect(second.leafId).toBe(last.id);
    await second.close();
  });

  it('takes over a lock left by a dead process on this host', async () => {
    const log = await SessionLog.create(file, { id: 'abc' }, { lock: false });
    await log.close();
    const pid = deadPid();
    writeFileSync(lockPath(file), JSON.stringify({ pid, host: os.hostname(), time: Date.now(), token: 'old' }));
    const { log: taken } = await SessionLog.open(file);
    const holder = JSON.parse(readFileSync(lockPath(file), 'utf8')) as { pid: number };
    expect(holder.pid).toBe(process.pid);
    await taken.close();
  });

  it('two windows taking over one stale lock at once: exactly one holds it', async () => {
    const path = lockPath(file);
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: os.hostname(), time: Date.now(), token: 'old' }));
    // The second removal of the lock file waits until the first contender holds it: the race that left two holders.
    let firstHolds: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (firstHolds = resolve));
    let removals = 0;
    const gated = async (target: string): Promise<void> => {
      if (target === path && ++removals === 2) await Promise.race([held, new Promise((resolve) => setTimeout(resolve, 3000))]);
    };
    const io: FileIo = {
      ...nodeFileIo,
      rename: async (from, to) => {
        await gated(from);
        return nodeFileIo.rename(from, to);
      },
      unlink: async (target) => {
        await gated(target);
        return nodeFileIo.unlink(target);
      },
      createExclusive: async (target, data) => {
        const created = await nodeFileIo.createExclusive(target, data);
        if (created && target === path) firstHolds();
        return created;
      },
    };
    const outcomes = await Promise.allSettled([SessionLock.acquire(path, 'abc', io, { heartbeatMs: 0, pid: 1, isPidAlive: (pid) => pid === 1 || pid === 2 }), SessionLock.acquire(path, 'abc', io, { heartbeatMs: 0, pid: 2, isPidAlive: (pid) => pid === 1 || pid === 2 })]);
    const holders = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(holders).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(SessionLockedError);
    for (const outcome of holders) await outcome.value.release();
  });

  it('respects a live lock from another host until its heartbeat expires', async () => {
    const path = nodePath.join(dir, 'x.lock');
    let now = 1_000_000;
    writeFileSync(path, JSON.stringify({ pid: 4242, host: 'other-host', time: now, token: 'theirs' }));
    const options = { now: () => now, staleAfterMs: 60_000, heartbeatMs: 0 };
    const error: unknown = await SessionLock.acquire(path, 'x', nodeFileIo, options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as Error).message).toBe('session x is open in another window (pid 4242)');
    now += 60_001;
    const lock = await SessionLock.acquire(path, 'x', nodeFileIo, options);
    now += 10;
    await lock.refresh();
    expect((JSON.parse(readFileSync(path, 'utf8')) as { time: number }).time).toBe(now);
    await lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('treats an unreadable lock file (crash while writing it) as stale', async () => {
    const path = nodePath.join(dir, 'y.lock');
    writeFileSync(path, '{"pi');
    const lock = await SessionLock.acquire(path, 'y', nodeFileIo, { heartbeatMs: 0 });
    await lock.release();
  });

  it('lock-lost-while-asleep: a writer whose stale lock was taken over becomes read-only instead of writing', async () => {
    let now = 1_000_000;
    const lock = { now: () => now, staleAfterMs: 60_000, heartbeatMs: 0 };
    const first = await SessionLog.create(file, { id: 'abc' }, { lock });
    await first.append({ type: 'user', text: 'before the sleep' });
    // The laptop sleeps: no heartbeat for longer than the stale limit, and another window takes the session over.
    now += 61_000;
    const { log: second } = await SessionLog.open(file, { lock });
    const theirs = await second.append({ type: 'user', text: 'written by the other window' });
    now += 1_000;
    const error: unknown = await first.append({ type: 'user', text: 'must not land' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionLockLostError);
    expect((error as Error).message).toMatch(/session abc was taken over by another window \(pid \d+\) while this one was inactive; it is read-only here now/);
    expect(first.readOnly).toBe(true);
    expect(first.readOnlyReason).toBe((error as Error).message);
    await expect(first.moveLeaf(theirs.id)).rejects.toBeInstanceOf(SessionLockLostError);
    await first.close();
    // The other window's lock and lines are untouched; nothing of the old writer reached the file.
    expect(readFileSync(file, 'utf8')).not.toContain('must not land');
    expect(existsSync(lockPath(file))).toBe(true);
    const next = await second.append({ type: 'assistant', text: 'still mine', toolCalls: [] });
    expect(next.parentId).toBe(theirs.id);
    await second.close();
  });

  it('a writer that slept but was not taken over renews its lock before it writes', async () => {
    let now = 1_000_000;
    const lock = { now: () => now, staleAfterMs: 60_000, heartbeatMs: 0 };
    const log = await SessionLog.create(file, { id: 'abc' }, { lock });
    now += 3_600_000;
    await log.append({ type: 'user', text: 'awake again' });
    expect((JSON.parse(readFileSync(lockPath(file), 'utf8')) as { time: number }).time).toBe(now);
    expect(log.readOnly).toBe(false);
    await expect(SessionLog.open(file, { lock })).rejects.toBeInstanceOf(SessionLockedError);
    await log.close();
  });

  it('the heartbeat notices a takeover and stops renewing a lock that is not its own', async () => {
    const path = nodePath.join(dir, 'z.lock');
    let now = 1_000_000;
    const options = { now: () => now, staleAfterMs: 60_000, heartbeatMs: 0 };
    const mine = await SessionLock.acquire(path, 'z', nodeFileIo, options);
    now += 61_000;
    const theirs = await SessionLock.acquire(path, 'z', nodeFileIo, options);
    const before = readFileSync(path, 'utf8');
    await mine.refresh();
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(mine.lost).toBeInstanceOf(SessionLockLostError);
    await expect(mine.ensureHeld()).rejects.toBeInstanceOf(SessionLockLostError);
    await mine.release();
    expect(existsSync(path)).toBe(true);
    await theirs.release();
  });
});

describe('isLockHeld (whether another window holds a session, without taking it)', () => {
  it('judges a lock as acquire does: live holder yes; dead pid, expired heartbeat, no file no; an unreadable one only while young', async () => {
    const lock = lockPath(file);
    expect(await isLockHeld(lock, nodeFileIo)).toBe(false);
    const held = await SessionLock.acquire(lock, 'abc', nodeFileIo, { heartbeatMs: 0 });
    expect(await isLockHeld(lock, nodeFileIo)).toBe(true);
    expect(await isLockHeld(lock, nodeFileIo, { now: () => Date.now() + 120_000 })).toBe(false);
    expect(await isLockHeld(lock, nodeFileIo, { hostname: 'another-host' })).toBe(true);
    await held.release();
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: os.hostname(), time: Date.now(), token: 't' }));
    expect(await isLockHeld(lock, nodeFileIo)).toBe(false);
    writeFileSync(lock, '');
    expect(await isLockHeld(lock, nodeFileIo)).toBe(true);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await isLockHeld(lock, nodeFileIo)).toBe(false);
  });
});
