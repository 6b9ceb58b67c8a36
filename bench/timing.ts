// Timing primitives for the benchmarks: warm-up, repeated samples, medians and percentiles.
import { performance } from 'node:perf_hooks';

/** Collects garbage when Node runs with --expose-gc (run.mjs passes it), so GC pauses stay out of samples. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * Process CPU time in milliseconds (user + system, microsecond resolution). Compute benchmarks use it
 * instead of wall time: on a shared 2-core machine our process is often descheduled, which wall time
 * would count and CPU time does not.
 */
export function cpuNow(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU milliseconds one call of fn takes. */
export function timeOnce(fn: () => void): number {
  const start = cpuNow();
  fn();
  return cpuNow() - start;
}

/** Wall-clock milliseconds (for what a user waits for, e.g. event-loop stretches). */
export function wallTimeOnce(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

export interface PairedTimes {
  a: number[];
  b: number[];
}

/**
 * Times two variants alternately (A B, B A, ...) after warm-up, so drift of a shared, noisy machine
 * hits both sides alike; returns every sample in milliseconds. Garbage is collected every fourth pair and
 * followed by an untimed pair, never right before a timed sample: process CPU time includes the collector's
 * helper threads, whose sweep after a full collection would otherwise be billed to the next sample.
 */
export function timePaired(a: () => void, b: () => void, iterations: number, warmup = 2): PairedTimes {
  for (let i = 0; i < warmup; i++) {
    a();
    b();
  }
  const times: PairedTimes = { a: [], b: [] };
  for (let i = 0; i < iterations; i++) {
    if (i % 4 === 0) {
      collectGarbage();
      a();
      b();
    }
    if (i % 2 === 0) {
      times.a.push(timeOnce(a));
      times.b.push(timeOnce(b));
    } else {
      times.b.push(timeOnce(b));
      times.a.push(timeOnce(a));
    }
  }
  return times;
}

/** Median of per-pair ratios a/b: each pair ran back to back, so it shares the machine's state of the moment. */
export function pairedRatio(times: PairedTimes): number {
  return median(times.a.map((a, i) => a / (times.b[i] ?? Number.NaN)));
}

/** Median of `iterations` timed calls after `warmup` untimed ones. */
export function medianTime(fn: () => void, iterations: number, warmup = 3): number {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) samples.push(timeOnce(fn));
  return median(samples);
}

/** The longest gap between event-loop turns from now until `stop()`, which first lets the loop turn once more (so a synchronous stretch that just ended is seen). */
export function gapTicker(): { stop: () => Promise<number> } {
  let running = true;
  let last = performance.now();
  let longest = 0;
  const tick = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      running = false;
      return longest;
    },
  };
}
