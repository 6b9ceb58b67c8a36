// The value bench's verdict: each policy against our defaults on the same recorded calls, with a paired block bootstrap over those calls, and the rule that says when the defaults are beaten.
import { BOOTSTRAP_RESAMPLES, random, type CallSample } from './availability';

/** One recorded model call's availability sample, named by its session (workload) and its place among that session's recorded calls. */
export interface KeyedSample extends CallSample {
  workload: string;
  /** 0-based index of the recorded call in its session (the same call for every policy). */
  call: number;
}

/**
 * Calls of one session that are resampled together. Neighbouring calls share the files in play and the state of the
 * context (what the last compaction kept), so they are correlated; resampling them one by one understates the
 * interval. Measured at 32k, pi against the defaults on the public sessions: the paired 90 % interval is 3.1 points
 * wide over single calls, 5.4 over blocks of 8, 9.0 over 32, 8.6–9.2 over 64–256, 10.2 over whole sessions (the
 * bench's own set has three, too few to resample alone); OpenCode's stays at 1.7–2.1 whatever the unit. Blocks of 32
 * reach the plateau and leave enough units.
 */
export const BLOCK_CALLS = 32;

/** Sums of one block: each policy's available and needed things over the block's calls. */
interface Block {
  base: { part: number; whole: number };
  other: { part: number; whole: number };
}

/** The blocks of two policies' samples, keyed by session and block number; a call one policy lacks counts for neither. */
export function pairedBlocks(base: readonly KeyedSample[], other: readonly KeyedSample[], length = BLOCK_CALLS): Block[] {
  const key = (sample: KeyedSample): string => `${sample.workload}\u0000${sample.call}`;
  const others = new Map(other.map((sample) => [key(sample), sample] as const));
  const blocks = new Map<string, Block>();
  for (const sample of base) {
    const match = others.get(key(sample));
    if (!match) continue;
    const id = `${sample.workload}\u0000${Math.floor(sample.call / length)}`;
    const block = blocks.get(id) ?? { base: { part: 0, whole: 0 }, other: { part: 0, whole: 0 } };
    block.base.part += sample.available;
    block.base.whole += sample.needs;
    block.other.part += match.available;
    block.other.whole += match.needs;
    blocks.set(id, block);
  }
  return [...blocks.values()].filter((block) => block.base.whole > 0 || block.other.whole > 0);
}

/** Each policy's samples summed into blocks of one policy alone (for its own interval). */
export function singleBlocks(samples: readonly KeyedSample[], length = BLOCK_CALLS): Array<{ part: number; whole: number }> {
  return pairedBlocks(samples, samples, length).map((block) => block.base);
}

export interface PairedDifference {
  /** other's pooled share − base's pooled share, on the calls both replayed (null when nothing was needed). */
  delta: number | null;
  /** 90 % interval of the difference: 5th and 95th percentile over block resamples. */
  low: number | null;
  high: number | null;
  blocks: number;
}

const share = (part: number, whole: number): number => (whole > 0 ? part / whole : 0);

/**
 * The paired availability difference with a 90 % percentile bootstrap: the same resampled blocks for both policies,
 * so what the calls have in common (how much a session needs, how hard it is) cancels out of the difference.
 */
export function pairedDifference(base: readonly KeyedSample[], other: readonly KeyedSample[], resamples = BOOTSTRAP_RESAMPLES, length = BLOCK_CALLS): PairedDifference {
  const blocks = pairedBlocks(base, other, length);
  const total = (pick: (block: Block) => { part: number; whole: number }, chosen: readonly Block[]): { part: number; whole: number } =>
    chosen.reduce((sum, block) => ({ part: sum.part + pick(block).part, whole: sum.whole + pick(block).whole }), { part: 0, whole: 0 });
  const b = total((block) => block.base, blocks);
  const o = total((block) => block.other, blocks);
  if (b.whole === 0 || o.whole === 0) return { delta: null, low: null, high: null, blocks: blocks.length };
  const delta = share(o.part, o.whole) - share(b.part, b.whole);
  const next = random(0x9a1e + blocks.length);
  const deltas: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let bp = 0;
    let bw = 0;
    let op = 0;
    let ow = 0;
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[Math.floor(next() * blocks.length)] as Block;
      bp += block.base.part;
      bw += block.base.whole;
      op += block.other.part;
      ow += block.other.whole;
    }
    deltas.push(share(op, ow) - share(bp, bw));
  }
  deltas.sort((x, y) => x - y);
  const at = (q: number): number => deltas[Math.min(deltas.length - 1, Math.max(0, Math.floor(q * (deltas.length - 1))))] ?? delta;
  return { delta, low: at(0.05), high: at(0.95), blocks: blocks.length };
}

/** The rule's thresholds: at least 2 % cheaper with the paired interval's low end above −0.5 points, or +1 point at no more cost. */
export const VERDICT = { cheaper: 0.02, equalLow: -0.005, better: 0.01 } as const;

/** How another policy compares with the defaults on the same calls. */
export interface Comparison {
  /** (other's cost − defaults' cost) / defaults' cost, per price table. */
  costDelta: number;
  costDeltaWritePremium: number;
  pairedAvailabilityDelta: number | null;
  pairedLow: number | null;
  pairedHigh: number | null;
}

export type Beaten = 'cheaper at equal availability' | 'better at no more cost';

/**
 * Whether `other` beats the defaults, and how: at least 2 % cheaper while the low end of its paired availability
 * difference is above −0.5 points, or more than +1 point of availability at no more cost, under either price table
 * (without or with the cache-write premium): beating the defaults under one of them is enough.
 */
export function beatsDefaults(comparison: Comparison): Beaten | null {
  const { pairedAvailabilityDelta: delta, pairedLow: low } = comparison;
  if (delta === null || low === null) return null;
  const costs = [comparison.costDelta, comparison.costDeltaWritePremium];
  if (costs.some((cost) => cost <= -VERDICT.cheaper) && low > VERDICT.equalLow) return 'cheaper at equal availability';
  if (delta > VERDICT.better && costs.some((cost) => cost <= 0)) return 'better at no more cost';
  return null;
}
