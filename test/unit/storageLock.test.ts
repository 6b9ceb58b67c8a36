// The per-session lock: a second writer gets a clear message, stale locks (dead pid, expired heartbeat) are taken over.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockPath, SessionLog } from '../../src/core/session/sessionLog';
import { SessionLock, SessionLockedError } from '../../src/core/storage/sessionLock';
import { nodeFileIo } from '../../src/core/storage/fileIo';
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
});
