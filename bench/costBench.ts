// The value bench (row 8; issues 16, 23, 28, 36): every workload replayed at 8k–1M through our real policy and the peers', billed with a prefix cache, scored on availability per call, each policy judged against the defaults on the same calls.
import { thresholdsFor } from '../src/core/budget/thresholds';
import { defaultSettings, type Settings } from '../src/core/settings/settings';
import { TokenCounter } from '../src/core/tokens/tokenCounter';
import { AvailabilityIndex, bootstrapShare, type Share } from './availability';
import { costWorkloads, fittedTurns, modelCalls, type CostWorkload } from './costWorkloads';
import { NeedIndex, pooledNeeds, scoreCompactions, type NeedSample, type Recovery } from './needRetention';
import { replayOurs, type ReplayOutcome } from './ourReplay';
import { beatsDefaults, pairedDifference, singleBlocks, type Beaten, type Comparison, type KeyedSample } from './pairedVerdict';
import { PEER_POLICIES } from './peerPolicies';
import { replayPeer } from './peerReplay';
import { SWEEP_LABELS, type SweepPoint } from './frontierSweep';
import { dollars, PrefixCache, WRITE_PREMIUM_PRICES } from './prefixCache';
import type { RetentionSample } from './retention';

/** The windows replayed, keyed as the JSON's `value` names them (the window in tokens). */
export const COST_WINDOWS = [
  { key: '8192', label: '8k', tokens: 8_192 },
  { key: '32000', label: '32k', tokens: 32_000 },
  { key: '128000', label: '128k', tokens: 128_000 },
  { key: '200000', label: '200k', tokens: 200_000 },
  { key: '1000000', label: '1M', tokens: 1_000_000 },
] as const;

export const POLICY_LABELS: Record<string, string> = {
  ours: 'ours (defaults)',
  pi: 'pi',
  opencode: 'OpenCode',
  opencodeClassic: 'OpenCode (classic, old release)',
  claudeCodeLow: 'Claude Code (band: cheap end)',
  claudeCodeHigh: 'Claude Code (band: dear end)',
  ...SWEEP_LABELS,
};

/** The other agents' policies: the rivals the defaults are judged against (our swept settings are candidates, not rivals). */
export const PEER_KEYS: readonly string[] = PEER_POLICIES.map((policy) => policy.key);

/** Tokens of the reply that asks for a recovery read (a read_transcript or read_stored_output call). */
const RECOVERY_CALL_OUTPUT = 40;

/** One policy's bill over every workload at one window. */
export interface PolicyBill {
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  summaryCalls: number;
  summaryInputTokens: number;
  /** Dollars at PRICES (no cache-write premium) and at WRITE_PREMIUM_PRICES (Anthropic's 1.25× on cache writes). */
  cost: number;
  costWritePremium: number;
  compactions: number;
  prunes: number;
  refusals: number;
  errors: number;
  retention: RetentionSample[];
  /** Need-based retention, one sample per compaction. */
  needs: NeedSample[];
  /** Availability, one sample per recorded model call (dropped ones included), named by session and call. */
  calls: KeyedSample[];
  /** Recorded model calls the policy never made (dropped steps, stopped requests). */
  dropped: number;
  /** Dollars of reading back what was recoverable (not in `cost`). */
  recoveryCost: number;
  /** Dollars per workload, by name, at both price tables. */
  byWorkload: Record<string, { cost: number; costWritePremium: number }>;
}

function emptyBill(): PolicyBill {
  return { promptTokens: 0, cachedTokens: 0, outputTokens: 0, summaryCalls: 0, summaryInputTokens: 0, cost: 0, costWritePremium: 0, compactions: 0, prunes: 0, refusals: 0, errors: 0, retention: [], needs: [], calls: [], dropped: 0, recoveryCost: 0, byWorkload: {} };
}

/**
 * Scores a replay's compactions on need-based retention. With `recovery`, needs the summary lacks can be read back
 * (ours: read_transcript / read_stored_output); each read is billed as its tokens uncached, one more request
 * re-sending the post-compaction context cached, and the call's reply: a lower bound (the read stays in later prompts).
 */
function addNeeds(bill: PolicyBill, run: ReplayOutcome, recovery?: Recovery): void {
  const samples = scoreCompactions(new NeedIndex(run.trace, run.commands), run.snapshots, recovery, new Set(run.dropped));
  samples.forEach((sample, i) => {
    bill.recoveryCost += dollars(sample.recoveryTokens, sample.recoveryCalls * (run.snapshots[i]?.contextTokens ?? 0), sample.recoveryCalls * RECOVERY_CALL_OUTPUT);
  });
  bill.needs.push(...samples);
}

/** For each trace position, the index of the recorded call it is among the replies (the same for every policy). */
function callIndex(run: ReplayOutcome): number[] {
  let replies = 0;
  return run.trace.map((item) => (item.kind === 'reply' ? replies++ : -1));
}

/**
 * Adds one replay to a bill: every accepted request through a fresh cache, in the order it was sent, and one
 * availability sample per recorded reply (a dropped one holds nothing).
 */
function addReplay(bill: PolicyBill, workload: string, run: ReplayOutcome, meter: PrefixCache, available: AvailabilityIndex): void {
  meter.reset();
  const spent = { cost: 0, costWritePremium: 0 };
  const index = new NeedIndex(run.trace, run.commands);
  const calls = callIndex(run);
  const keyed = (position: number, parts: readonly number[] | null): KeyedSample => ({ ...available.sample(index, position, parts), workload, call: calls[position] ?? -1 });
  for (const position of run.dropped) bill.calls.push(keyed(position, null));
  bill.dropped += run.dropped.length;
  for (const call of run.calls) {
    const billed = meter.bill(call);
    if (call.kind === 'main' && call.position !== undefined) bill.calls.push(keyed(call.position, billed.parts));
    bill.promptTokens += billed.prompt;
    bill.cachedTokens += billed.cached;
    bill.outputTokens += billed.output;
    if (call.kind === 'summary') {
      bill.summaryCalls++;
      bill.summaryInputTokens += billed.prompt;
    }
    spent.cost += dollars(billed.prompt - billed.cached, billed.cached, billed.output);
    spent.costWritePremium += dollars(billed.prompt - billed.cached, billed.cached, billed.output, WRITE_PREMIUM_PRICES);
  }
  bill.cost += spent.cost;
  bill.costWritePremium += spent.costWritePremium;
  bill.byWorkload[workload] = spent;
  bill.compactions += run.compactions;
  bill.prunes += run.prunes;
  bill.refusals += run.refusals;
  bill.errors += run.errors.length;
  bill.retention.push(...run.retention);
}

export interface CostRun {
  /** Bills by window key, then policy key (ours first, then the peers). */
  bills: Record<string, Record<string, PolicyBill>>;
  /** Our policy under each swept setting, by window key then sweep key. */
  sweep: Record<string, Record<string, PolicyBill>>;
  workloads: Array<{ name: string; family: string; turns: number; calls: number; shape: string; source?: string }>;
  seconds: number;
  /** Where the sessions came from: the bench's own, or a folder given with --sessions. */
  sessions: string;
  /** The public sessions judged in the same run (the default run only). */
  public?: CostRun;
}

export interface CostReplayOptions {
  quick: boolean;
  /** Our settings at a window (default: defaultSettings(), whose 0s scale with the window). */
  settings?: (window: number) => Settings;
  oursOnly?: boolean;
  log?: (text: string) => void;
  workloads?: CostWorkload[];
  /** Our settings swept for the frontier (each replays every workload at every window once more). */
  sweep?: readonly SweepPoint[];
  /** Names the session set in the report (default: the bench sessions). */
  sessions?: string;
  /** Windows to replay (default: all of COST_WINDOWS), by key. */
  windows?: readonly string[];
}

/** Our recovery: any item of the session can be read back (the log keeps everything), capped as a tool output is. */
function ourRecovery(run: ReplayOutcome, counter: TokenCounter, window: number, settings: Settings): Recovery {
  const cap = thresholdsFor(window, settings).toolOutputChars;
  return { itemTokens: (position) => counter.countText((run.trace[position]?.text ?? '').slice(0, cap)) + 20 };
}

/** Replays every workload at every window through our policy and, unless `oursOnly`, the peers'. */
export async function runCostReplay(options: CostReplayOptions): Promise<CostRun> {
  const started = performance.now();
  const counter = await TokenCounter.create('gpt-4o');
  const meter = new PrefixCache(counter);
  const available = new AvailabilityIndex(meter);
  const workloads = options.workloads ?? costWorkloads(options.quick);
  const bills: CostRun['bills'] = {};
  const sweep: CostRun['sweep'] = {};
  for (const window of COST_WINDOWS.filter((w) => !options.windows || options.windows.includes(w.key))) {
    const byPolicy: Record<string, PolicyBill> = { ours: emptyBill() };
    if (!options.oursOnly) for (const policy of PEER_POLICIES) byPolicy[policy.key] = emptyBill();
    const bySweep: Record<string, PolicyBill> = {};
    for (const workload of workloads) {
      options.log?.(`bench: value replay ${workload.name} at ${window.label}...`);
      const turns = fittedTurns(workload.turns, window.tokens, counter);
      const settings = options.settings?.(window.tokens) ?? defaultSettings();
      const ours = await replayOurs(turns, window.tokens, counter, meter, { settings });
      addReplay(byPolicy.ours as PolicyBill, workload.name, ours, meter, available);
      addNeeds(byPolicy.ours as PolicyBill, ours, ourRecovery(ours, counter, window.tokens, settings));
      for (const point of options.sweep ?? []) {
        const pointSettings = point.settings(window.tokens);
        const run = await replayOurs(turns, window.tokens, counter, meter, { settings: pointSettings });
        const bill = (bySweep[point.key] ??= emptyBill());
        addReplay(bill, workload.name, run, meter, available);
        addNeeds(bill, run, ourRecovery(run, counter, window.tokens, pointSettings));
      }
      if (options.oursOnly) continue;
      const setup = { systemPrompt: ours.systemPrompt, tools: ours.tools, window: window.tokens, counter, meter };
      for (const policy of PEER_POLICIES) {
        const run = replayPeer(policy, turns, setup);
        addReplay(byPolicy[policy.key] as PolicyBill, workload.name, run, meter, available);
        addNeeds(byPolicy[policy.key] as PolicyBill, run);
      }
    }
    bills[window.key] = byPolicy;
    sweep[window.key] = bySweep;
  }
  return {
    bills,
    sweep,
    workloads: workloads.map((w) => ({ name: w.name, family: w.family, turns: w.turns.length, calls: modelCalls(w.turns), shape: w.shape, ...(w.source ? { source: w.source } : {}) })),
    seconds: (performance.now() - started) / 1000,
    sessions: options.sessions ?? 'the bench sessions',
  };
}

/** A bill's availability: pooled over every recorded call, with its 90 % bootstrap interval over blocks of calls (pairedVerdict.ts). */
export function availability(bill: PolicyBill): Share {
  const share = bootstrapShare(singleBlocks(bill.calls));
  return { ...share, units: bill.calls.filter((c) => c.needs > 0).length };
}

/** A bill's need-based retention (verbatim), with its 90 % bootstrap interval over compactions. */
export function needShare(bill: PolicyBill): Share {
  return bootstrapShare(bill.needs.map((n) => ({ part: n.verbatim, whole: n.needs })));
}

/** A bill's need-based retention: the share of needs the next context holds verbatim (null when nothing was needed). */
export function needRetention(bill: PolicyBill): number | null {
  return pooledNeeds(bill.needs).verbatim;
}

/** Every bill of a window: the policies, then the swept settings. */
export function billsOf(run: CostRun, window: string): Array<[string, PolicyBill]> {
  return [...Object.entries(run.bills[window] ?? {}), ...Object.entries(run.sweep[window] ?? {})];
}

/** `other` against `base` on the same calls, restricted to some workloads (default: all). */
export function compare(base: PolicyBill, other: PolicyBill, workloads?: ReadonlySet<string>): Comparison {
  const within = (name: string): boolean => !workloads || workloads.has(name);
  const spent = (bill: PolicyBill, pick: 'cost' | 'costWritePremium'): number => Object.entries(bill.byWorkload).reduce((sum, [name, cost]) => sum + (within(name) ? cost[pick] : 0), 0);
  const relative = (pick: 'cost' | 'costWritePremium'): number => (spent(base, pick) > 0 ? spent(other, pick) / spent(base, pick) - 1 : 0);
  const paired = pairedDifference(base.calls.filter((c) => within(c.workload)), other.calls.filter((c) => within(c.workload)));
  return { costDelta: relative('cost'), costDeltaWritePremium: relative('costWritePremium'), pairedAvailabilityDelta: paired.delta, pairedLow: paired.low, pairedHigh: paired.high };
}

export type Verdict = Comparison & { beaten: Beaten | null };

/** Verdicts already computed, per run and window (each is a bootstrap per policy). */
const judgedRuns = new WeakMap<CostRun, Map<string, Record<string, Verdict>>>();

/** Every other policy and swept setting at a window against the defaults, on the same calls. */
export function verdicts(run: CostRun, window: string): Record<string, Verdict> {
  const known = judgedRuns.get(run)?.get(window);
  if (known) return known;
  const ours = run.bills[window]?.ours;
  if (!ours) return {};
  const out: Record<string, Verdict> = {};
  for (const [key, bill] of billsOf(run, window)) {
    if (key === 'ours') continue;
    const comparison = compare(ours, bill);
    out[key] = { ...comparison, beaten: beatsDefaults(comparison) };
  }
  const byWindow = judgedRuns.get(run) ?? new Map<string, Record<string, Verdict>>();
  byWindow.set(window, out);
  judgedRuns.set(run, byWindow);
  return out;
}

/** Whether our defaults are on the frontier at a window: no peer beats them by the paired rule (null when ours was not replayed). */
export function defaultsOnFrontier(run: CostRun, window: string, judged = verdicts(run, window)): boolean | null {
  if (!run.bills[window]?.ours) return null;
  return !PEER_KEYS.some((key) => judged[key]?.beaten);
}
