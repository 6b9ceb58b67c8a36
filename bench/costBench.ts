// Cost per session (issue 16): every workload replayed at 32k/128k/200k through our real policy and the peers', billed with a prefix cache.
import { defaultSettings, type Settings } from '../src/core/settings/settings';
import { TokenCounter } from '../src/core/tokens/tokenCounter';
import { row, type BenchRow } from './benchReport';
import { costWorkloads, type CostWorkload } from './costWorkloads';
import { replayOurs, type ReplayOutcome } from './ourReplay';
import { PEER_POLICIES } from './peerPolicies';
import { replayPeer } from './peerReplay';
import { dollars, PrefixCache } from './prefixCache';
import { pooledShare, type RetentionSample } from './retention';

export const COST_WINDOWS = [
  { key: '32k', tokens: 32_768 },
  { key: '128k', tokens: 131_072 },
  { key: '200k', tokens: 200_000 },
] as const;

export const POLICY_LABELS: Readonly<Record<string, string>> = { ours: 'ours (defaults)', pi: 'pi', opencode: 'OpenCode', claudeCode: 'Claude Code' };

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
  /** Dollars per workload, by name. */
  byWorkload: Record<string, number>;
}

function emptyBill(): PolicyBill {
  return { promptTokens: 0, cachedTokens: 0, outputTokens: 0, summaryCalls: 0, summaryInputTokens: 0, cost: 0, compactions: 0, prunes: 0, refusals: 0, errors: 0, retention: [], byWorkload: {} };
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
  workloads: Array<{ name: string; turns: number }>;
  seconds: number;
}

export interface CostReplayOptions {
  quick: boolean;
  /** Our settings at a window (default: defaultSettings(), whose 0s scale with the window). */
  settings?: (window: number) => Settings;
  oursOnly?: boolean;
  log?: (text: string) => void;
  workloads?: CostWorkload[];
}

/** Replays every workload at every window through our policy and, unless `oursOnly`, the peers'. */
export async function runCostReplay(options: CostReplayOptions): Promise<CostRun> {
  const started = performance.now();
  const counter = await TokenCounter.create('gpt-4o');
  const meter = new PrefixCache(counter);
  const workloads = options.workloads ?? costWorkloads(options.quick);
  const bills: CostRun['bills'] = {};
  for (const window of COST_WINDOWS) {
    const byPolicy: Record<string, PolicyBill> = { ours: emptyBill() };
    if (!options.oursOnly) for (const policy of PEER_POLICIES) byPolicy[policy.key] = emptyBill();
    for (const workload of workloads) {
      options.log?.(`bench: cost replay ${workload.name} at ${window.key}...`);
      const ours = await replayOurs(workload.turns, window.tokens, counter, meter, { settings: options.settings?.(window.tokens) ?? defaultSettings() });
      addReplay(byPolicy.ours as PolicyBill, workload.name, ours, meter);
      if (options.oursOnly) continue;
      const setup = { systemPrompt: ours.systemPrompt, tools: ours.tools, window: window.tokens, counter, meter };
      for (const policy of PEER_POLICIES) addReplay(byPolicy[policy.key] as PolicyBill, workload.name, replayPeer(policy, ours.fitted, setup), meter);
    }
    bills[window.key] = byPolicy;
  }
  return { bills, workloads: workloads.map((w) => ({ name: w.name, turns: w.turns.length })), seconds: (performance.now() - started) / 1000 };
}

const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
const millions = (tokens: number): string => `${(tokens / 1e6).toFixed(2)} M`;
const percent = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(value >= 0.995 && value < 1 ? 1 : 0)} %`);

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
    for (const [policy, bill] of Object.entries(byPolicy)) {
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
          detail: `prompt ${millions(bill.promptTokens)}, cached ${percent(share(bill.cachedTokens, bill.promptTokens))}, uncached ${millions(bill.promptTokens - bill.cachedTokens)}, ${bill.summaryCalls} summary calls (${millions(bill.summaryInputTokens)} in), ${bill.compactions} compactions, ${bill.prunes} prunes, retention ${retentionText(bill)}${bill.errors > 0 ? `, ${bill.errors} errors` : ''}`,
        }),
      );
    }
  }
  return rows;
}

/** A Markdown table per window: policy × prompt tokens, cached share, uncached tokens, summary calls, cost, retention. */
export function costTables(run: CostRun): string {
  const out: string[] = [];
  for (const [window, byPolicy] of Object.entries(run.bills)) {
    out.push(`### ${window} window`, '', '| policy | prompt tokens | cached share | uncached tokens | summary calls (input) | compactions / prunes | cost | retention |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const [policy, bill] of Object.entries(byPolicy)) {
      const perWorkload = Object.entries(bill.byWorkload).map(([name, cost]) => `${name} $${cost.toFixed(2)}`).join(', ');
      out.push(
        `| ${POLICY_LABELS[policy] ?? policy} | ${millions(bill.promptTokens)} | ${percent(share(bill.cachedTokens, bill.promptTokens))} | ${millions(bill.promptTokens - bill.cachedTokens)} | ${bill.summaryCalls} (${millions(bill.summaryInputTokens)}) | ${bill.compactions} / ${bill.prunes} | $${bill.cost.toFixed(2)} (${perWorkload}) | ${retentionText(bill)}${bill.errors > 0 ? `; ${bill.errors} steps dropped` : ''} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
