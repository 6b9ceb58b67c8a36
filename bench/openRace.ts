// The warm-open race of row 12: a session opened with its saved counts and measured, against JSON.parse of the same lines, in pairs.
import { readFileSync } from 'node:fs';
import { measureContext } from '../src/core/budget/meter';
import type { SessionEntry } from '../src/core/session/entries';
import { SessionLog } from '../src/core/session/sessionLog';
import { CountCacheFile } from '../src/core/tokens/countCacheFile';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { growthDeps } from './growthWorkload';
import { bareParse, parseLines } from './sessionLoadBench';
import { collectGarbage, cpuNow, median, timeOnce } from './timing';

/** Entries a round of the race covers at least: 8 pairs at 1k entries, 1 from 10k on. */
const RACE_ENTRIES = 8000;

/** One pair of the race: CPU ms of the warm open (and of the log's open alone) and of JSON.parse, and which ran first. */
export interface RacePair {
  open: number;
  log: number;
  parse: number;
  openFirst: boolean;
}

/** A warm open (CPU ms): SessionLog.open with its lock, the saved counts read and restored, the context measured; and the path it measured. */
export async function openWarm(file: string, cacheFile: string, counter: TokenCounter): Promise<{ total: number; log: number; path: readonly SessionEntry[] }> {
  const start = cpuNow();
  const { log } = await SessionLog.open(file);
  const opened = cpuNow() - start;
  const cache = CountCacheFile.parse(readFileSync(cacheFile, 'utf8')).cache;
  const path = log.path();
  measureContext(path, growthDeps(counter, cache));
  const spent = cpuNow() - start;
  await log.close();
  return { total: spent, log: opened, path };
}

/**
 * Entries the untimed runs after a forced collection cover: 60 runs at 1k entries, 6 at 10k, 1 from 100k. A full
 * collection that frees the sessions the last runs opened also throws away the optimized code that embedded their
 * objects (V8 marks it for deoptimization, "weak objects"), and the open's code is optimized again over its next tens
 * of runs (traced with --trace-deopt and --trace-opt; CPU above wall time while the compiler's threads work). JSON.parse
 * is built in and has no such code. Timed from the first run after the collection, that re-optimizing was billed to
 * the open: at 1k entries 1.6–1.8× JSON.parse in pairs and 2.6–3.1× in a loop; after 20 untimed runs 1.3× in pairs and
 * 2.1× in a loop; after 60, 1.3× and 1.4×.
 */
const SETTLE_ENTRIES = 60_000;

/** Untimed runs of each runner after a forced collection (see SETTLE_ENTRIES). */
export function settleRuns(size: number): number {
  return Math.max(1, Math.round(SETTLE_ENTRIES / size));
}

/** One round: a collection, untimed pairs until its aftermath is done, then pairs run back to back in alternating order (several for a small session). */
export async function raceRound(file: string, cacheFile: string, size: number, counter: TokenCounter, round: number): Promise<RacePair[]> {
  collectGarbage();
  for (let run = 0; run < settleRuns(size); run++) {
    await openWarm(file, cacheFile, counter);
    bareParse(file);
  }
  const pairs: RacePair[] = [];
  const count = Math.max(1, Math.round(RACE_ENTRIES / size));
  for (let index = 0; index < count; index++) {
    if ((round + index) % 2 === 0) {
      const open = await openWarm(file, cacheFile, counter);
      pairs.push({ open: open.total, log: open.log, parse: timeOnce(() => bareParse(file)), openFirst: true });
    } else {
      const parse = timeOnce(() => bareParse(file));
      const open = await openWarm(file, cacheFile, counter);
      pairs.push({ open: open.total, log: open.log, parse, openFirst: false });
    }
  }
  return pairs;
}

/**
 * The race's ratio: the geometric mean of the median ratio of the pairs the open ran first in and that of the pairs
 * JSON.parse ran first in. Process CPU time bills the collector's helper threads to whichever call runs while they
 * work, so the runner that goes second pays for what the first left (an open leaves its whole session to promote and
 * mark, a parse the garbage of its lines): at 100k entries about 0.93× open-first against 1.7× parse-first. Either
 * order alone favours one runner; the mean of both cancels the hand-over.
 */
export function raceRatio(pairs: readonly RacePair[], part: 'open' | 'log'): number {
  const first = median(pairs.filter((pair) => pair.openFirst).map((pair) => pair[part] / pair.parse));
  const second = median(pairs.filter((pair) => !pair.openFirst).map((pair) => pair[part] / pair.parse));
  if (Number.isNaN(first)) return second;
  if (Number.isNaN(second)) return first;
  return Math.sqrt(first * second);
}

/**
 * Entries a loop of the throughput race covers at least: 300 opens in a row at 1k entries, 30 at 10k, LOOP_LEAST from
 * 100k on. A full collection of the bench's heap (about 160 MB live: every size's session and its turns) costs 60–130 ms
 * and comes every so many megabytes promoted: with 3 opens at 10k entries it fell inside one loop of opens and not
 * inside the loop of parses beside it, or the other way, and a loop's figure swung between 1.3× and 3.6× on it. Loops
 * this long hold several of them each, so each runner pays for the collections in proportion to what it promoted.
 */
const LOOP_ENTRIES = 300_000;
/** Opens in a row at least, whatever the size. */
const LOOP_LEAST = 5;

/**
 * The throughput race: warm opens in a row against as many JSON.parse runs in a row, CPU ms per run. Each run's
 * result is kept until the next run's is ready (an open's session, closed, its path still held; a parse's values), as
 * a window keeps the session it opened: each loop then pays for the collector's work on what it kept (promoting,
 * marking and freeing), which a race of single runs leaves to whatever runs next.
 */
export async function loopRound(file: string, cacheFile: string, size: number, counter: TokenCounter): Promise<{ open: number; parse: number }> {
  const count = Math.max(LOOP_LEAST, Math.round(LOOP_ENTRIES / size));
  // What the last run made, held until the next one's is ready.
  const held: { kept: readonly unknown[] } = { kept: [] };
  collectGarbage();
  for (let run = 0; run < settleRuns(size); run++) held.kept = (await openWarm(file, cacheFile, counter)).path;
  let start = cpuNow();
  for (let index = 0; index < count; index++) held.kept = (await openWarm(file, cacheFile, counter)).path;
  const open = (cpuNow() - start) / count;
  held.kept = [];
  collectGarbage();
  for (let run = 0; run < settleRuns(size); run++) held.kept = parseLines(file);
  start = cpuNow();
  for (let index = 0; index < count; index++) held.kept = parseLines(file);
  const parse = (cpuNow() - start) / count;
  return { open, parse };
}
