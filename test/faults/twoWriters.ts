// Fault family 4: one writer per session across processes (clear refusal, stale-lock takeover) and no interleaving within one.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { parseLog } from '../../src/core/session/logParser';
import { lockPath, SessionLog } from '../../src/core/session/sessionLog';
import { SessionLockedError } from '../../src/core/storage/sessionLock';
import { startChild, type ChildRun } from './childProcesses';
import { messageOf, runFamily, type FamilyResult } from './familyReport';
import { fixtureEntries } from './fixtureEntries';

type Check = (condition: boolean, message: string) => void;

const RACES = 8;
const CONCURRENT_APPENDS = 1000;

/** Starts a lockHolder child and resolves with its first status line ("locked ...", "refused ...", "error ..."). */
async function holder(file: string): Promise<{ run: ChildRun; status: string }> {
  let resolveStatus: (line: string) => void = () => undefined;
  const status = new Promise<string>((resolve) => (resolveStatus = resolve));
  const run = startChild('lockHolder', [file], (line) => resolveStatus(line));
  void run.exited.then(() => resolveStatus('exited without a status'));
  return { run, status: await status };
}

async function newSession(dir: string, name: string): Promise<string> {
  const file = nodePath.join(dir, `${name}.jsonl`);
  const log = await SessionLog.create(file, { id: name });
  await log.append({ type: 'user', text: 'first' });
  await log.close();
  return file;
}

async function secondWindowRefused(dir: string, check: Check): Promise<void> {
  const file = await newSession(dir, 'held');
  const first = await holder(file);
  check(first.status.startsWith('locked'), `holder could not lock: ${first.status}`);
  try {
    await SessionLog.open(file);
    check(false, 'a second writer opened a locked session');
  } catch (error) {
    check(
      error instanceof SessionLockedError && /open in another window/.test(error.message),
      `unclear refusal: ${messageOf(error)}`,
    );
  }
  const viewer = await SessionLog.open(file, { readOnly: true });
  check(viewer.log.path().length === 2, 'read-only view of a locked session failed');
  first.run.child.kill('SIGTERM');
  await first.run.exited;
  const after = await SessionLog.open(file);
  check(after.log.path().length === 2, 'session not writable after the holder closed');
  await after.log.close();
}

async function staleLockTakenOver(dir: string, check: Check): Promise<void> {
  const file = await newSession(dir, 'stale');
  const first = await holder(file);
  first.run.child.kill('SIGKILL');
  await first.run.exited;
  check(
    readFileSync(lockPath(file), 'utf8').includes(String(first.run.child.pid)),
    'killed holder left no lock to take over',
  );
  const taken = await SessionLog.open(file, { lock: { heartbeatMs: 0 } });
  check(taken.log.path().length === 2, 'stale lock taken over but entries missing');
  await taken.log.append({ type: 'user', text: 'after takeover' });
  await taken.log.close();
  // A lock naming a pid that does not exist, e.g. left by a crash before a reboot.
  writeFileSync(
    lockPath(file),
    JSON.stringify({ pid: 2 ** 22 + 12_345, host: hostname(), time: Date.now(), token: 'x' }),
  );
  const again = await SessionLog.open(file, { lock: { heartbeatMs: 0 } });
  check(again.log.path().length === 3, 'dead-pid lock not taken over');
  await again.log.close();
}

/** Two processes start at once: exactly one gets the session, the other a clear refusal. */
async function race(dir: string, index: number, check: Check): Promise<void> {
  const file = await newSession(dir, `race-${index}`);
  const [a, b] = await Promise.all([holder(file), holder(file)]);
  const statuses = [a.status, b.status];
  const locked = statuses.filter((status) => status.startsWith('locked')).length;
  const refused = statuses.filter(
    (status) => status.startsWith('refused') && status.includes('open in another window'),
  ).length;
  check(locked === 1 && refused === 1, `race ${index}: ${statuses.join(' | ')}`);
  for (const { run } of [a, b]) run.child.kill('SIGTERM');
  await Promise.all([a.run.exited, b.run.exited]);
  const parsed = parseLog(readFileSync(file), file);
  check(
    parsed.corrupt.length === 0 && !parsed.torn && parsed.entries.length === 1 + locked,
    `race ${index}: log holds ${parsed.entries.length} entries`,
  );
}

async function concurrentAppends(dir: string, check: Check): Promise<void> {
  const file = nodePath.join(dir, 'concurrent.jsonl');
  const log = await SessionLog.create(file, { id: 'concurrent' });
  const sources = fixtureEntries();
  const results = await Promise.allSettled(
    Array.from({ length: CONCURRENT_APPENDS }, (_, index) =>
      log.append({ ...(sources[index % sources.length] ?? { type: 'user', text: '' }), id: `c${index}` }),
    ),
  );
  await log.close();
  check(
    results.every((result) => result.status === 'fulfilled'),
    'some concurrent appends rejected',
  );
  const parsed = parseLog(readFileSync(file), file);
  check(
    parsed.entries.length === CONCURRENT_APPENDS && parsed.corrupt.length === 0 && !parsed.torn,
    `${parsed.entries.length} valid lines, ${parsed.corrupt.length} corrupt`,
  );
  const chained = parsed.entries.every(
    (entry, index) => entry.id === `c${index}` && entry.parentId === (index === 0 ? null : `c${index - 1}`),
  );
  check(chained, 'concurrent appends not in call order or not chained');
}

async function run(): Promise<FamilyResult> {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-writers-'));
  const failures: string[] = [];
  const check: Check = (ok, message) => {
    if (!ok) failures.push(message);
  };
  try {
    await secondWindowRefused(root, check);
    await staleLockTakenOver(root, check);
    for (let index = 0; index < RACES; index++) await race(root, index, check);
    await concurrentAppends(root, check);
    const line = `two-writers: second window refused, stale lock taken over, ${RACES}/${RACES} races one winner, ${CONCURRENT_APPENDS} concurrent appends → ${CONCURRENT_APPENDS} valid lines`;
    return { line: failures.length > 0 ? `two-writers: ${failures.length} failed checks` : line, failures };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runFamily('two-writers', run);
