// Cost per session (issues 16, 23): every workload replayed at 32k/128k/200k through our real policy and the peers', billed with a prefix cache, scored on need-based retention.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { thresholdsFor } from '../src/core/budget/thresholds';
import { defaultSettings, type Settings } from '../src/core/settings/settings';
import { TokenCounter } from '../src/core/tokens/tokenCounter';
import { row, type BenchRow } from './benchReport';
import { costWorkloads, fittedTurns, type CostWorkload } from './costWorkloads';
import { NeedIndex, pooledNeeds, scoreCompactions, type NeedSample, type Recovery } from './needRetention';
import { replayOurs, type ReplayOutcome } from './ourReplay';
import { PEER_POLICIES } from './peerPolicies';
import { replayPeer } from './peerReplay';
import { SWEEP_LABELS } from './frontierSweep';
import { frontierSvg } from './frontierSvg';
import { dollars, PrefixCache } from './prefixCache';
import { pooledShare, type RetentionSample } from './retention';

export const COST_WINDOWS = [
  { key: '32k', tokens: 32_768 },
  { key: '128k', tokens: 131_072 },
  { key: '200k', tokens: 200_000 },
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

/** Tokens of the reply that asks for a recovery read (a read_transcript or read_stored_output call). */
const RECOVERY_CALL_OUTPUT = 40;

/** One policy's bill over every workload at one window. */
export interface PolicyBill {
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  summaryCalls: number;
  summaryInputTokens: number;
  cost: number;
  compactions: number;
  prunes: number;
  refusals: number;
  errors: number;
  retention: RetentionSample[];
  /** Need-based retention, one sample per compaction. */
  needs: NeedSample[];
  /** Dollars of reading back what was recoverable (not in `cost`). */
  recoveryCost: number;
  /** Dollars per workload, by name. */
  byWorkload: Record<string, number>;
}

function emptyBill(): PolicyBill {
  return { promptTokens: 0, cachedTokens: 0, outputTokens: 0, summaryCalls: 0, summaryInputTokens: 0, cost: 0, compactions: 0, prunes: 0, refusals: 0, errors: 0, retention: [], needs: [], recoveryCost: 0, byWorkload: {} };
}

/**
 * Scores a replay's compactions on need-based retention. With `recovery`, needs the summary lacks can be read back
 * (ours: read_transcript / read_stored_output); each read is billed as its tokens uncached, one more request
 * re-sending the post-compaction context cached, and the call's reply: a lower bound (the read stays in later prompts).
 */
function addNeeds(bill: PolicyBill, run: ReplayOutcome, recovery?: Recovery): void {
  const samples = scoreCompactions(new NeedIndex(run.trace, run.commands), run.snapshots, recovery);
  samples.forEach((sample, i) => {
    bill.recoveryCost += dollars(sample.recoveryTokens, sample.recoveryCalls * (run.snapshots[i]?.contextTokens ?? 0), sample.recoveryCalls * RECOVERY_CALL_OUTPUT);
  });
  bill.needs.push(...samples);
}

/** Adds one replay to a bill: every accepted request through a fresh cache, in the order it was sent. */
function addReplay(bill: PolicyBill, workload: string, run: ReplayOutcome, meter: PrefixCache): void {
  meter.reset();
  let cost = 0;
  for (const call of run.calls) {
    const billed = meter.bill(call);
    bill.promptTokens += billed.prompt;
    bill.cachedTokens += billed.cached;
    bill.outputTokens += billed.output;
    if (call.kind === 'summary') {
      bill.summaryCalls++;
      bill.summaryInputTokens += billed.prompt;
    }
    cost += dollars(billed.prompt - billed.cached, billed.cached, billed.output);
  }
  bill.cost += cost;
  bill.byWorkload[workload] = cost;
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
  workloads: Array<{ name: string; turns: number; shape: string }>;
  seconds: number;
}

/** One swept configuration of our settings. */
export interface SweepPoint {
  key: string;
  label: string;
  settings: (window: number) => Settings;
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
  const workloads = options.workloads ?? costWorkloads(options.quick);
  const bills: CostRun['bills'] = {};
  const sweep: CostRun['sweep'] = {};
  for (const window of COST_WINDOWS) {
    const byPolicy: Record<string, PolicyBill> = { ours: emptyBill() };
    if (!options.oursOnly) for (const policy of PEER_POLICIES) byPolicy[policy.key] = emptyBill();
    const bySweep: Record<string, PolicyBill> = {};
    for (const workload of workloads) {
      options.log?.(`bench: cost replay ${workload.name} at ${window.key}...`);
      const turns = fittedTurns(workload.turns, window.tokens, counter);
      const settings = options.settings?.(window.tokens) ?? defaultSettings();
      const ours = await replayOurs(turns, window.tokens, counter, meter, { settings });
      addReplay(byPolicy.ours as PolicyBill, workload.name, ours, meter);
      addNeeds(byPolicy.ours as PolicyBill, ours, ourRecovery(ours, counter, window.tokens, settings));
      for (const point of options.sweep ?? []) {
        const pointSettings = point.settings(window.tokens);
        const run = await replayOurs(turns, window.tokens, counter, meter, { settings: pointSettings });
        const bill = (bySweep[point.key] ??= emptyBill());
        addReplay(bill, workload.name, run, meter);
        addNeeds(bill, run, ourRecovery(run, counter, window.tokens, pointSettings));
      }
      if (options.oursOnly) continue;
      const setup = { systemPrompt: ours.systemPrompt, tools: ours.tools, window: window.tokens, counter, meter };
      for (const policy of PEER_POLICIES) {
        const run = replayPeer(policy, turns, setup);
        addReplay(byPolicy[policy.key] as PolicyBill, workload.name, run, meter);
        addNeeds(byPolicy[policy.key] as PolicyBill, run);
      }
    }
    bills[window.key] = byPolicy;
    sweep[window.key] = bySweep;
  }
  return { bills, sweep, workloads: workloads.map((w) => ({ name: w.name, turns: w.turns.length, shape: w.shape })), seconds: (performance.now() - started) / 1000 };
}

/** A bill's need-based retention: the share of needs the next context holds verbatim (null when nothing was needed). */
export function needRetention(bill: PolicyBill): number | null {
  return pooledNeeds(bill.needs).verbatim;
}

/** A point of the frontier: cost against need-based retention (a policy that never compacted loses nothing: 1). */
export interface FrontierPoint {
  key: string;
  label: string;
  cost: number;
  needRetention: number;
  kind: 'ours' | 'sweep' | 'peer';
}

export function frontierPoints(run: CostRun, window: string): FrontierPoint[] {
  const point = (key: string, bill: PolicyBill, kind: FrontierPoint['kind'], label: string): FrontierPoint => ({ key, label, cost: bill.cost, needRetention: needRetention(bill) ?? 1, kind });
  const policies = Object.entries(run.bills[window] ?? {}).map(([key, bill]) => point(key, bill, key === 'ours' ? 'ours' : 'peer', POLICY_LABELS[key] ?? key));
  const swept = Object.entries(run.sweep[window] ?? {}).map(([key, bill]) => point(key, bill, 'sweep', POLICY_LABELS[key] ?? key));
  return [...policies, ...swept];
}

/** Differences below these count as ties: replays of one policy vary by a few tokens (fresh ids in read-back notes). */
const COST_TIE = 0.005;
const RETENTION_TIE = 0.005;

/** Whether `a` beats `b` on both axes: no dearer, no lower retention (beyond a tie), and better on one. */
export function dominates(a: FrontierPoint, b: FrontierPoint): boolean {
  const cheaper = a.cost < b.cost * (1 - COST_TIE);
  const notDearer = a.cost <= b.cost * (1 + COST_TIE);
  const keepsMore = a.needRetention > b.needRetention + RETENTION_TIE;
  const keepsAsMuch = a.needRetention >= b.needRetention - RETENTION_TIE;
  return notDearer && keepsAsMuch && (cheaper || keepsMore);
}

/** The points no other point dominates, cheapest first. */
export function frontier(points: readonly FrontierPoint[]): FrontierPoint[] {
  return points.filter((p) => !points.some((q) => q !== p && dominates(q, p))).sort((a, b) => a.cost - b.cost);
}

const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
const millions = (tokens: number): string => `${(tokens / 1e6).toFixed(2)} M`;
const percent = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(value >= 0.995 && value < 1 ? 1 : 0)} %`);

/** Need-based retention as text: verbatim share, recoverable share and what recovering it costs. */
function needText(bill: PolicyBill): string {
  const needs = pooledNeeds(bill.needs);
  if (needs.needs === 0) return bill.compactions === 0 ? 'n/a (no compaction)' : 'n/a (no needs)';
  const recovered = needs.recoverable ? `, +${percent(needs.recoverable)} recoverable for $${bill.recoveryCost.toFixed(2)} (${needs.recoveryCalls} reads)` : '';
  return `${percent(needs.verbatim)} of ${needs.needs} needs verbatim${recovered}`;
}

function retentionText(bill: PolicyBill): string {
  if (bill.retention.length === 0) return 'n/a (no compaction)';
  const files = pooledShare(bill.retention, (s) => [s.files]);
  const requests = pooledShare(bill.retention, (s) => [s.requests]);
  return `${percent(pooledShare(bill.retention))} (files ${percent(files)}, requests ${percent(requests)})`;
}

/** The figures under stable keys: cost.<window>.<policy>.<figure>. */
export function costFigures(run: CostRun): Record<string, number | null> {
  const figures: Record<string, number | null> = {};
  for (const [window, byPolicy] of Object.entries(run.bills)) {
    for (const [policy, bill] of [...Object.entries(byPolicy), ...Object.entries(run.sweep[window] ?? {})]) {
      const key = `cost.${window}.${policy}`;
      figures[`${key}.promptTokens`] = bill.promptTokens;
      figures[`${key}.cachedShare`] = share(bill.cachedTokens, bill.promptTokens);
      figures[`${key}.uncachedTokens`] = bill.promptTokens - bill.cachedTokens;
      figures[`${key}.outputTokens`] = bill.outputTokens;
      figures[`${key}.summaryCalls`] = bill.summaryCalls;
      figures[`${key}.summaryInputTokens`] = bill.summaryInputTokens;
      figures[`${key}.cost`] = Math.round(bill.cost * 10_000) / 10_000;
      figures[`${key}.retention`] = pooledShare(bill.retention);
      figures[`${key}.retentionFiles`] = pooledShare(bill.retention, (s) => [s.files]);
      figures[`${key}.retentionRequests`] = pooledShare(bill.retention, (s) => [s.requests]);
      const needs = pooledNeeds(bill.needs);
      figures[`${key}.needRetention`] = needs.verbatim;
      figures[`${key}.needRecoverable`] = needs.recoverable;
      figures[`${key}.needs`] = needs.needs;
      figures[`${key}.recoveryCost`] = Math.round(bill.recoveryCost * 10_000) / 10_000;
      figures[`${key}.compactions`] = bill.compactions;
      figures[`${key}.prunes`] = bill.prunes;
      figures[`${key}.errors`] = bill.errors;
    }
  }
  return figures;
}

/** One row per window and policy: the session cost, ours against the cheapest peer. */
export function costRows(run: CostRun): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const [window, byPolicy] of Object.entries(run.bills)) {
    const peers = Object.entries(byPolicy).filter(([policy]) => policy !== 'ours');
    const cheapest = Math.min(...peers.map(([, bill]) => bill.cost));
    for (const [policy, bill] of Object.entries(byPolicy)) {
      const ours = policy === 'ours';
      rows.push(
        row({
          key: `cost.${window}.${policy}.cost`,
          label: `8. cost of the sessions at ${window}: ${POLICY_LABELS[policy] ?? policy}`,
          value: Math.round(bill.cost * 100) / 100,
          unit: '$',
          target: ours && peers.length > 0 ? '≤ cheapest peer' : '',
          met: ours && peers.length > 0 ? bill.cost <= cheapest : null,
          detail: `need-based retention ${needText(bill)}; prompt ${millions(bill.promptTokens)}, cached ${percent(share(bill.cachedTokens, bill.promptTokens))}, uncached ${millions(bill.promptTokens - bill.cachedTokens)}, ${bill.summaryCalls} summary calls (${millions(bill.summaryInputTokens)} in), ${bill.compactions} compactions, ${bill.prunes} prunes, retention ${retentionText(bill)}${bill.errors > 0 ? `, ${bill.errors} errors` : ''}`,
        }),
      );
    }
  }
  return rows;
}

/** A Markdown table per window: policy × prompt tokens, cached share, uncached tokens, summary calls, cost, need-based retention. */
export function costTables(run: CostRun): string {
  const out: string[] = [];
  for (const [window, byPolicy] of Object.entries(run.bills)) {
    out.push(
      `### ${window} window`,
      '',
      '| policy | prompt tokens | cached share | uncached tokens | summary calls (input) | compactions / prunes | cost | need-based retention | old retention (files, requests) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const [policy, bill] of [...Object.entries(byPolicy), ...Object.entries(run.sweep[window] ?? {})]) {
      const perWorkload = Object.entries(bill.byWorkload).map(([name, cost]) => `${name} $${cost.toFixed(2)}`).join(', ');
      out.push(
        `| ${POLICY_LABELS[policy] ?? policy} | ${millions(bill.promptTokens)} | ${percent(share(bill.cachedTokens, bill.promptTokens))} | ${millions(bill.promptTokens - bill.cachedTokens)} | ${bill.summaryCalls} (${millions(bill.summaryInputTokens)}) | ${bill.compactions} / ${bill.prunes} | $${bill.cost.toFixed(2)} (${perWorkload}) | ${needText(bill)} | ${retentionText(bill)}${bill.errors > 0 ? `; ${bill.errors} steps dropped` : ''} |`,
      );
    }
    const points = frontierPoints(run, window);
    const ours = points.find((p) => p.key === 'ours');
    const beaten = ours ? points.filter((p) => dominates(p, ours)).map((p) => `${p.label} ($${p.cost.toFixed(2)}, ${percent(p.needRetention)})`) : [];
    out.push('', `Frontier: ${frontier(points).map((p) => `${p.label} ($${p.cost.toFixed(2)}, ${percent(p.needRetention)})`).join(' → ')}. Defaults ${beaten.length === 0 ? 'on the frontier' : `beaten on both axes by ${beaten.join(', ')}`}.`, '');
  }
  return out.join('\n');
}

/** The window keys as the JSON's `value` names them: the window in tokens. */
const WINDOW_TOKENS: Readonly<Record<string, number>> = { '32k': 32_000, '128k': 128_000, '200k': 200_000 };

/**
 * The headline figures under `value.<window>.<policy>`: cost, needRetention (0–1, verbatim; 1 when a policy never
 * compacted), needRecoverable, costWithRecovery; and `value.<window>.defaultsOnFrontier`.
 */
export function costValue(run: CostRun): Record<string, Record<string, unknown>> {
  const value: Record<string, Record<string, unknown>> = {};
  for (const window of Object.keys(run.bills)) {
    const points = frontierPoints(run, window);
    const entry: Record<string, unknown> = {};
    for (const [policy, bill] of [...Object.entries(run.bills[window] ?? {}), ...Object.entries(run.sweep[window] ?? {})]) {
      const needs = pooledNeeds(bill.needs);
      entry[policy] = {
        cost: Math.round(bill.cost * 10_000) / 10_000,
        needRetention: needs.verbatim ?? 1,
        needRecoverable: needs.recoverable ?? 0,
        needs: needs.needs,
        costWithRecovery: Math.round((bill.cost + bill.recoveryCost) * 10_000) / 10_000,
        compactions: bill.compactions,
      };
    }
    const ours = points.find((p) => p.key === 'ours');
    entry.defaultsOnFrontier = ours ? !points.some((p) => dominates(p, ours)) : null;
    entry.frontier = frontier(points).map((p) => p.key);
    value[String(WINDOW_TOKENS[window] ?? window)] = entry;
  }
  return value;
}

/** Writes docs/bench/frontier-<window>.svg for every window; returns the paths written. */
export function writeFrontierPictures(run: CostRun, root: string): string[] {
  const dir = nodePath.join(root, 'docs', 'bench');
  mkdirSync(dir, { recursive: true });
  return Object.keys(run.bills).map((window) => {
    const file = nodePath.join(dir, `frontier-${window}.svg`);
    writeFileSync(file, `${frontierSvg(`${window} window: cost against need-based retention`, frontierPoints(run, window), ['claudeCodeLow', 'claudeCodeHigh'])}\n`);
    return file;
  });
}

/**
 * The cost/value family's whole section of BENCHMARKS.md (tables, pictures, prose with this run's figures), as
 * `npm run bench -- --write` places it. For now a thin wrapper over costTables; the family's owner replaces the body.
 */
export function costMarkdownSection(run: CostRun): string {
  const pictures = Object.keys(run.bills).map((window) => `![${window} frontier](docs/bench/frontier-${window}.svg)`);
  return [
    '## Cost per session against what the session needs later (row 8)',
    '',
    `Row 8 is its own family (\`bench/costBench.ts\`): every workload replayed at each window through our real policy and the peers', billed with a prefix cache, scored on need-based retention. \`npm run bench -- --only=cost\` runs it alone; in this run it took ${run.seconds.toFixed(0)} s. Workloads: ${run.workloads.map((w) => `${w.name} (${w.turns} turns, ${w.shape})`).join('; ')}.`,
    '',
    ...pictures.flatMap((picture) => [picture, '']),
    costTables(run),
  ].join('\n');
}
