// Fault family 1: SIGKILL a writer mid-append at random moments; no committed entry may be lost, nothing invented.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseLog } from '../../src/core/session/logParser';
import { lockPath, SessionLog } from '../../src/core/session/sessionLog';
import { existsSync } from 'node:fs';
import { runPool, startChild } from './childProcesses';
import { FailureList, messageOf, runFamily, type FamilyResult } from './familyReport';
import { quarantinedLines } from './quarantineRecords';
import { SeededRandom } from './seededRandom';
import { plannedEntry } from './writerWorkload';

const RUNS = Number(process.env.KILL9_RUNS ?? 200);
const PARALLEL = 3;
/** Far more than a writer can commit before the kill (5–300 ms), so every run is cut mid-workload. */
const ENTRIES_PER_WRITER = 50_000;
const BASE_SEED = 9000;

interface RunOutcome {
  lost: number;
  torn: boolean;
  committed: number;
}

/** Starts a writer, kills it 5–300 ms after it reports the session open, and returns the ids it reported committed. */
async function killWriter(
  file: string,
  seed: number,
): Promise<{ committed: string[]; finished: boolean; stderr: string }> {
  const delay = new SeededRandom(seed * 7919).int(5, 300);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = startChild('killNineWriter', [file, String(seed), String(ENTRIES_PER_WRITER)], (line) => {
    if (line === 'ready') timer = setTimeout(() => run.child.kill('SIGKILL'), delay);
  });
  // A writer that never gets going must not hang the suite.
  const guard = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
  await run.exited;
  clearTimeout(guard);
  if (timer) clearTimeout(timer);
  const finished = run.lines.includes('done');
  const committed = run.lines.filter((line) => line !== 'ready' && line !== 'done');
  return { committed, finished, stderr: run.stderr.join('') };
}

/** The loaded path must be a prefix of the planned entries, each exactly as attempted. */
function checkPrefix(loaded: readonly unknown[], seed: number, failures: FailureList, tag: string): void {
  let parentId: string | null = null;
  loaded.forEach((entry, index) => {
    const attempt = index < ENTRIES_PER_WRITER ? plannedEntry(seed, index) : undefined;
    const expected = attempt ? { ...attempt, parentId } : undefined;
    if (!isDeepStrictEqual(entry, expected))
      failures.add(`${tag}: loaded entry #${index} is not the entry the writer attempted there`);
    parentId = attempt?.id ?? null;
  });
}

function checkTornTail(file: string, before: Buffer, warnings: string[], failures: FailureList, tag: string): boolean {
  const torn = before.length > 0 && before[before.length - 1] !== 0x0a;
  if (!torn) {
    if (warnings.length > 0) failures.add(`${tag}: warnings on a clean file: ${warnings.join('; ')}`);
    return false;
  }
  const tail = before.subarray(before.lastIndexOf(0x0a) + 1);
  if (!warnings.some((warning) => warning.includes('incomplete last line')))
    failures.add(`${tag}: torn tail dropped without a warning`);
  if (!quarantinedLines(file).some((record) => record.raw.equals(tail)))
    failures.add(`${tag}: torn tail bytes not in quarantine`);
  return true;
}

async function verifyRun(
  file: string,
  seed: number,
  committed: string[],
  failures: FailureList,
  tag: string,
): Promise<RunOutcome> {
  const before = readFileSync(file);
  const { log, warnings } = await SessionLog.open(file, { lock: { heartbeatMs: 0 } });
  const loaded = log.path();
  const loadedIds = new Set(loaded.map((entry) => entry.id));
  const lost = committed.filter((id) => !loadedIds.has(id)).length;
  if (lost > 0) failures.add(`${tag}: ${lost} committed entries missing after reload`);
  if (loaded.length > committed.length + 1)
    failures.add(`${tag}: ${loaded.length} entries loaded but only ${committed.length} reported (+1 in flight)`);
  checkPrefix(loaded, seed, failures, tag);
  const torn = checkTornTail(file, before, warnings, failures, tag);
  const next = await log.append({ type: 'user', text: 'after the crash' });
  await log.close();
  const after = parseLog(readFileSync(file), file);
  if (after.torn || after.corrupt.length > 0) failures.add(`${tag}: file not valid after the post-crash append`);
  if (after.entries.length !== loaded.length + 1 || after.entries.at(-1)?.id !== next.id)
    failures.add(`${tag}: post-crash append not on disk`);
  if (existsSync(lockPath(file))) failures.add(`${tag}: lock file left after close`);
  return { lost, torn, committed: committed.length };
}

async function oneRun(root: string, index: number, failures: FailureList): Promise<RunOutcome> {
  const seed = BASE_SEED + index;
  const tag = `run ${index} (seed ${seed})`;
  const file = nodePath.join(root, `run-${index}`, 'session.jsonl');
  const { committed, finished, stderr } = await killWriter(file, seed);
  if (stderr.trim() !== '') failures.add(`${tag}: writer error: ${stderr.trim().split('\n')[0]}`);
  if (finished) failures.add(`${tag}: writer finished before the kill (workload too small)`);
  try {
    return await verifyRun(file, seed, committed, failures, tag);
  } catch (error) {
    failures.add(`${tag}: reload failed: ${messageOf(error)}`);
    return { lost: committed.length, torn: false, committed: committed.length };
  } finally {
    rmSync(nodePath.dirname(file), { recursive: true, force: true });
  }
}

async function run(): Promise<FamilyResult> {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-kill9-'));
  const failures = new FailureList();
  try {
    const outcomes = await runPool(RUNS, PARALLEL, (index) => oneRun(root, index, failures));
    const lost = outcomes.reduce((sum, outcome) => sum + outcome.lost, 0);
    const torn = outcomes.filter((outcome) => outcome.torn).length;
    const committed = outcomes.reduce((sum, outcome) => sum + outcome.committed, 0);
    process.stderr.write(`kill-9 detail: ${committed} committed appends across ${RUNS} runs\n`);
    return {
      line: `kill-9: ${RUNS} runs, ${lost} committed entries lost, ${torn} torn tails dropped`,
      failures: failures.list(),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runFamily('kill-9', run);
