// The value bench (row 8; issues 16, 23, 28): every workload replayed at 8k–1M through our real policy and the peers', billed with a prefix cache, scored on availability per call and need-based retention.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { thresholdsFor } from '../src/core/budget/thresholds';
import { defaultSettings, type Settings } from '../src/core/settings/settings';
import { TokenCounter } from '../src/core/tokens/tokenCounter';
import { AvailabilityIndex, BOOTSTRAP_RESAMPLES, bootstrapShare, type CallSample, type Share } from './availability';
import { row, type BenchRow } from './benchReport';
import { costWorkloads, fittedTurns, modelCalls, type CostWorkload } from './costWorkloads';
import { NeedIndex, pooledNeeds, scoreCompactions, type NeedSample, type Recovery } from './needRetention';
import { replayOurs, type ReplayOutcome } from './ourReplay';
import { PEER_POLICIES } from './peerPolicies';
import { replayPeer } from './peerReplay';
import { COST_TIE, dominates, frontier, type FrontierPoint } from './frontier';
import { SWEEP_LABELS, type SweepPoint } from './frontierSweep';
import { frontierSvg } from './frontierSvg';
import { CACHE_RULES, dollars, PrefixCache, PRICES } from './prefixCache';
import { pooledShare, type RetentionSample } from './retention';
import { SUMMARY_TOKENS } from './standInSummary';

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
  /** Availability, one sample per recorded model call (dropped ones included). */
  calls: CallSample[];
  /** Recorded model calls the policy never made (dropped steps, stopped requests). */
  dropped: number;
  /** Dollars of reading back what was recoverable (not in `cost`). */
  recoveryCost: number;
  /** Dollars per workload, by name. */
  byWorkload: Record<string, number>;
}

function emptyBill(): PolicyBill {
  return { promptTokens: 0, cachedTokens: 0, outputTokens: 0, summaryCalls: 0, summaryInputTokens: 0, cost: 0, compactions: 0, prunes: 0, refusals: 0, errors: 0, retention: [], needs: [], calls: [], dropped: 0, recoveryCost: 0, byWorkload: {} };
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

/**
 * Adds one replay to a bill: every accepted request through a fresh cache, in the order it was sent, and one
 * availability sample per recorded reply (a dropped one holds nothing).
 */
function addReplay(bill: PolicyBill, workload: string, run: ReplayOutcome, meter: PrefixCache, available: AvailabilityIndex): void {
  meter.reset();
  let cost = 0;
  const index = new NeedIndex(run.trace, run.commands);
  for (const position of run.dropped) bill.calls.push(available.sample(index, position, null));
  bill.dropped += run.dropped.length;
  for (const call of run.calls) {
    const billed = meter.bill(call);
    if (call.kind === 'main' && call.position !== undefined) bill.calls.push(available.sample(index, call.position, billed.parts));
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
  workloads: Array<{ name: string; turns: number; calls: number; shape: string; source?: string }>;
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
    workloads: workloads.map((w) => ({ name: w.name, turns: w.turns.length, calls: modelCalls(w.turns), shape: w.shape, ...(w.source ? { source: w.source } : {}) })),
    seconds: (performance.now() - started) / 1000,
    sessions: options.sessions ?? 'the bench sessions',
  };
}

/** A bill's availability: pooled over every recorded call, with its 90 % bootstrap interval over calls. */
export function availability(bill: PolicyBill): Share {
  return bootstrapShare(bill.calls.map((c) => ({ part: c.available, whole: c.needs })));
}

/** A bill's need-based retention (verbatim), with its 90 % bootstrap interval over compactions. */
export function needShare(bill: PolicyBill): Share {
  return bootstrapShare(bill.needs.map((n) => ({ part: n.verbatim, whole: n.needs })));
}

/** A bill's need-based retention: the share of needs the next context holds verbatim (null when nothing was needed). */
export function needRetention(bill: PolicyBill): number | null {
  return pooledNeeds(bill.needs).verbatim;
}

export function frontierPoints(run: CostRun, window: string): FrontierPoint[] {
  const point = (key: string, bill: PolicyBill, kind: FrontierPoint['kind'], label: string): FrontierPoint => {
    const share = availability(bill);
    return { key, label, cost: bill.cost, availability: share.value ?? 1, low: share.low ?? 1, high: share.high ?? 1, kind };
  };
  const policies = Object.entries(run.bills[window] ?? {}).map(([key, bill]) => point(key, bill, key === 'ours' ? 'ours' : 'peer', POLICY_LABELS[key] ?? key));
  const swept = Object.entries(run.sweep[window] ?? {}).map(([key, bill]) => point(key, bill, 'sweep', POLICY_LABELS[key] ?? key));
  return [...policies, ...swept];
}

const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
const millions = (tokens: number): string => `${(tokens / 1e6).toFixed(2)} M`;
const percent = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(value >= 0.995 && value < 1 ? 1 : 0)} %`);
const money = (value: number): string => `$${value.toFixed(value < 1 ? 3 : 2)}`;
const round = (value: number, places = 4): number => Math.round(value * 10 ** places) / 10 ** places;

/** Availability as text: share, interval, calls and needs. */
function availabilityText(bill: PolicyBill): string {
  const a = availability(bill);
  if (a.value === null) return 'n/a (no call needed anything seen earlier)';
  return `${percent(a.value)} (${percent(a.low)}–${percent(a.high)}; ${a.units} calls, ${a.needs} needs${bill.dropped > 0 ? `, ${bill.dropped} calls dropped` : ''})`;
}

/** Need-based retention as text: verbatim share with its interval, recoverable share and what recovering it costs. */
function needText(bill: PolicyBill): string {
  const needs = pooledNeeds(bill.needs);
  if (needs.needs === 0) return bill.compactions === 0 ? 'n/a (no compaction)' : 'n/a (no needs)';
  const n = needShare(bill);
  const recovered = needs.recoverable ? `; +${percent(needs.recoverable)} recoverable, ${money(bill.recoveryCost)} to read back` : '';
  return `${percent(needs.verbatim)} (${percent(n.low)}–${percent(n.high)}; ${n.units} compactions, ${needs.needs} needs${recovered})`;
}

function retentionText(bill: PolicyBill): string {
  if (bill.retention.length === 0) return 'n/a (no compaction)';
  const files = pooledShare(bill.retention, (s) => [s.files]);
  const requests = pooledShare(bill.retention, (s) => [s.requests]);
  return `${percent(pooledShare(bill.retention))} (files ${percent(files)}, requests ${percent(requests)})`;
}

/** Every bill of a window: the policies, then the swept settings. */
function billsOf(run: CostRun, window: string): Array<[string, PolicyBill]> {
  return [...Object.entries(run.bills[window] ?? {}), ...Object.entries(run.sweep[window] ?? {})];
}

/** The figures under stable keys: cost.<window>.<policy>.<figure>. */
export function costFigures(run: CostRun): Record<string, number | null> {
  const figures: Record<string, number | null> = {};
  for (const window of Object.keys(run.bills)) {
    for (const [policy, bill] of billsOf(run, window)) {
      const key = `cost.${window}.${policy}`;
      const a = availability(bill);
      figures[`${key}.promptTokens`] = bill.promptTokens;
      figures[`${key}.cachedShare`] = share(bill.cachedTokens, bill.promptTokens);
      figures[`${key}.outputTokens`] = bill.outputTokens;
      figures[`${key}.summaryCalls`] = bill.summaryCalls;
      figures[`${key}.cost`] = round(bill.cost);
      figures[`${key}.availability`] = a.value;
      figures[`${key}.needRetention`] = pooledNeeds(bill.needs).verbatim;
      figures[`${key}.compactions`] = bill.compactions;
      figures[`${key}.prunes`] = bill.prunes;
      figures[`${key}.dropped`] = bill.dropped;
    }
  }
  return figures;
}

/** Whether our defaults are on the frontier at a window (null when ours was not replayed). */
export function defaultsOnFrontier(run: CostRun, window: string): boolean | null {
  const points = frontierPoints(run, window);
  const ours = points.find((p) => p.key === 'ours');
  return ours ? !points.some((p) => p !== ours && dominates(p, ours)) : null;
}

/** One judged row per window: our defaults on the frontier (target), with where they sit and what beats them. */
export function costRows(run: CostRun): BenchRow[] {
  return [...windowRows(run, ''), ...(run.public ? windowRows(run.public, 'public.') : [])];
}

function windowRows(run: CostRun, keyPrefix: string): BenchRow[] {
  return COST_WINDOWS.filter((w) => run.bills[w.key]).map((window) => {
    const points = frontierPoints(run, window.key);
    const ours = points.find((p) => p.key === 'ours');
    const on = defaultsOnFrontier(run, window.key);
    const beaten = ours ? points.filter((p) => dominates(p, ours)).map((p) => `${p.label} ${money(p.cost)} at ${percent(p.availability)}`) : [];
    return row({
      key: `value.${keyPrefix}${window.key}.defaultsOnFrontier`,
      label: `8. defaults on the cost/availability frontier at ${window.label} (${run.sessions})`,
      value: on === null ? null : on ? 1 : 0,
      unit: '',
      target: 'on the frontier (1)',
      met: on,
      detail: ours ? `ours ${money(ours.cost)} at ${percent(ours.availability)} (${percent(ours.low)}–${percent(ours.high)})${beaten.length > 0 ? `; beaten by ${beaten.join(', ')}` : '; nothing cheaper is better beyond its interval'}` : 'ours not replayed',
    });
  });
}

/**
 * The headline under `value.<window>`: per policy `cost`, `availability`, `availabilityLow`, `availabilityHigh`,
 * `needRetention` (and counts), and `defaultsOnFrontier`, `frontier`.
 */
export function costValue(run: CostRun): Record<string, Record<string, unknown>> {
  const value: Record<string, Record<string, unknown>> = {};
  for (const window of Object.keys(run.bills)) {
    const entry: Record<string, unknown> = {};
    for (const [policy, bill] of billsOf(run, window)) {
      const a = availability(bill);
      const n = needShare(bill);
      entry[policy] = {
        cost: round(bill.cost),
        availability: a.value,
        availabilityLow: a.low,
        availabilityHigh: a.high,
        calls: a.units,
        callNeeds: a.needs,
        dropped: bill.dropped,
        needRetention: n.value,
        needRetentionLow: n.low,
        needRetentionHigh: n.high,
        needs: n.needs,
        compactions: bill.compactions,
        prunes: bill.prunes,
        cachedShare: share(bill.cachedTokens, bill.promptTokens),
      };
    }
    entry.defaultsOnFrontier = defaultsOnFrontier(run, window);
    entry.frontier = frontier(frontierPoints(run, window)).map((p) => p.key);
    value[window] = entry;
  }
  if (run.public) value.public = costValue(run.public);
  return value;
}

/** Writes docs/bench/<prefix>frontier-<window>.svg for every window; returns the paths written. */
export function writeFrontierPictures(run: CostRun, root: string, prefix = ''): string[] {
  const dir = nodePath.join(root, 'docs', 'bench');
  mkdirSync(dir, { recursive: true });
  return COST_WINDOWS.filter((w) => run.bills[w.key]).map((window) => {
    const file = nodePath.join(dir, `${prefix}frontier-${window.label}.svg`);
    writeFileSync(file, `${frontierSvg(`${window.label} window (${run.sessions}): cost against availability`, frontierPoints(run, window.key), ['claudeCodeLow', 'claudeCodeHigh'])}\n`);
    return file;
  });
}

/** The table of one window: every policy and swept setting. */
function windowTable(run: CostRun, window: string): string[] {
  const lines = [
    '| policy | cost | availability (90 % interval; calls, needs) | need-based retention, verbatim (interval; compactions, needs) | prompt tokens | cached | summary calls | compactions / prunes | old retention (files, requests) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [policy, bill] of billsOf(run, window)) {
    const name = policy === 'ours' ? `**${POLICY_LABELS[policy] ?? policy}**` : (POLICY_LABELS[policy] ?? policy);
    lines.push(`| ${name} | ${money(bill.cost)} | ${availabilityText(bill)} | ${needText(bill)} | ${millions(bill.promptTokens)} | ${percent(share(bill.cachedTokens, bill.promptTokens))} | ${bill.summaryCalls} | ${bill.compactions} / ${bill.prunes} | ${retentionText(bill)} |`);
  }
  return lines;
}

/** Where the defaults sit at one window, in one sentence with every number from the run. */
export function defaultsSentence(run: CostRun, window: string): string {
  const points = frontierPoints(run, window);
  const ours = points.find((p) => p.key === 'ours');
  if (!ours) return 'ours not replayed';
  const cheaper = points.filter((p) => p !== ours && p.cost < ours.cost * (1 - COST_TIE));
  const better = points.filter((p) => p !== ours && p.availability > ours.high);
  const beaten = points.filter((p) => dominates(p, ours));
  const label = COST_WINDOWS.find((w) => w.key === window)?.label ?? window;
  const where = `**${label}:** defaults ${money(ours.cost)} at ${percent(ours.availability)} availability (${percent(ours.low)}–${percent(ours.high)})`;
  if (beaten.length > 0) return `${where}: **not on the frontier**, beaten by ${beaten.map((p) => `${p.label} (${money(p.cost)}, ${percent(p.availability)})`).join(', ')}.`;
  const cheapest = [...points].sort((a, b) => a.cost - b.cost)[0];
  const best = [...points].sort((a, b) => b.availability - a.availability)[0];
  return `${where}: on the frontier; ${cheaper.length} measured point${cheaper.length === 1 ? ' is' : 's are'} cheaper (cheapest: ${cheapest?.label} ${money(cheapest?.cost ?? 0)} at ${percent(cheapest?.availability ?? null)}), ${better.length} better beyond the interval (best: ${best?.label} ${percent(best?.availability ?? null)} at ${money(best?.cost ?? 0)}), none both.`;
}

/** The peers as replayed, with the code each rule comes from (repository @ commit, file:line). */
export const PEER_TABLE = [
  '| policy | trigger | kept verbatim | pruning | summary request (what the stand-in reads) | source |',
  '| --- | --- | --- | --- | --- | --- |',
  "| pi | after each request: last usage > window − 16,384 (at 8k that is below zero: every step compacts, then is dropped); on overflow | newest 20,000 tokens, cut at a user or assistant message, searched only after its previous compaction (what that one kept is neither summarized nor kept again) | none | own system prompt + `<conversation>` serialized (tool results cut to 2,000 chars) + `<previous-summary>`; a split turn's head in a second serialized request; code appends `<read-files>`/`<modified-files>` | badlogic/pi-mono @83378aad `packages/coding-agent/src/core/compaction/compaction.ts:114-117` (defaults), `:212-214` (shouldCompact), `:376-436` (findCutPoint), `:601-660` (prepareCompaction: `boundaryStart = prevCompactionIndex + 1`), `:729-747` (split turn), `:780-790` (turn prefix request); `compaction/utils.ts:89,109-160` (serializeConversation, 2,000 chars) |",
  '| OpenCode (current) | after each step: input + output + cache ≥ context − min(model output, 32,000) | 25 % of that usable budget, 2,000–15,000 tokens (chars/4 of the messages as JSON), whole turns from the newest, no turn limit, then the first turn that does not fit split at a message | off (opt-in) | one user message: its template prompt, the previous summary, the head serialized (`[User]:`, `[Assistant tool call]:`, `[Tool result]:` cut to 2,000 chars + "[truncated]"); no system prompt, no tools | sst/opencode @3df4a255 `packages/opencode/src/session/compaction.ts:31-34` (TOOL_OUTPUT_MAX_CHARS, MIN/MAX_PRESERVE_RECENT_TOKENS), `:52-86` (truncate, serialize), `:116-121` (preserveRecentBudget: `usable × 0.25`), `:141-164` (splitTurn), `:224-234` (select: `tail_turns` unset = every turn); anomalyco/opencode @08f74b9b `overflow.ts:6-34` (usable, isOverflow) |',
  '| OpenCode (classic, old release) | as current | nothing: "What did we do so far?", the summary | after each request: outputs beyond the newest 40,000 tokens (chars/4), outside the last 2 turns, cleared when > 20,000 would go | its summarizer system prompt + the whole history as messages | anomalyco/opencode @001aa6cc `compaction.ts:88-90` (PRUNE_MINIMUM, PRUNE_PROTECT), `:146-190` (prune) |',
  '| Claude Code, cheap end | before each call: context > window − min(output, 20,000) − 13,000 | nothing but the summary | none | the conversation itself + the compact instruction under the same system prompt and tools (assumed served from the cache) | anthropics/claude-code#31806 (deobfuscated threshold); rules not public, hence a band |',
  '| Claude Code, dear end | as the cheap end | the summary, then the 5 files read last read back (≤ 5,000 tokens each, ≤ 50,000, ≤ a quarter of the window) | none | the conversation under its own system prompt: nothing cached | POST_COMPACT_* constants as copied by OpenCode forks (anomalyco/opencode @001aa6cc `compaction.ts:30-32`); plausible, not verified |',
].join('\n');

/** One session set's part of the section: what was replayed, a table and picture per window, where the defaults sit. */
function sessionSetSection(run: CostRun, pictures: string, prefix: string): string[] {
  const out: string[] = [];
  const calls = run.workloads.reduce((sum, w) => sum + w.calls, 0);
  out.push(
    `Replayed: ${run.workloads.map((w) => `\`${w.name}\` (${w.calls} model calls, ${w.turns} user turns${w.source ? `; ${w.source}` : ''})`).join(', ')}: ${calls} recorded model calls in all, in ${run.seconds.toFixed(0)} s.`,
    '',
  );
  for (const window of COST_WINDOWS.filter((w) => run.bills[w.key])) {
    const on = defaultsOnFrontier(run, window.key);
    out.push(`#### ${window.label} window, ${run.sessions}`, '', `![${window.label} frontier, ${run.sessions}](${pictures}/${prefix}frontier-${window.label}.svg)`, '', ...windowTable(run, window.key), '');
    out.push(`Frontier: ${frontier(frontierPoints(run, window.key)).map((p) => `${p.label} (${money(p.cost)}, ${percent(p.availability)})`).join(' → ')}. \`value.${prefix ? 'public.' : ''}${window.key}.defaultsOnFrontier\`: **${String(on)}**.`, '');
  }
  out.push(`**Where the defaults sit, ${run.sessions}:**`, '', ...COST_WINDOWS.filter((w) => run.bills[w.key]).map((w) => `- ${defaultsSentence(run, w.key)}`), '');
  return out;
}

/**
 * The whole markdown of the value section for BENCHMARKS.md: how it is measured, the peers with their sources, then
 * per session set (the bench's, and the public ones when the run carries them) one table and picture per window and
 * where the defaults sit. Every figure is interpolated from `run` or from the constants the bench uses.
 */
export function costMarkdownSection(run: CostRun): string {
  const pictures = 'docs/bench';
  const out: string[] = [
    '## Value: cost against availability (row 8)',
    '',
    `Row 8 is its own family (\`bench/costBench.ts\`): \`npm run bench -- --only=value\` runs it alone (${(run.seconds + (run.public?.seconds ?? 0)).toFixed(0)} s of replay in this run), \`--quick\` replays the first 12 user turns of our sessions and the first 40 calls of each public one, \`--no-sweep\` skips our swept settings, \`--sessions <folder>\` replays any folder of pi-format session JSONL (\`.jsonl\` or \`.jsonl.gz\`) instead. \`--json\` carries \`value.<window>.<policy>.{cost, availability, availabilityLow, availabilityHigh, needRetention}\` (and counts) and \`value.<window>.defaultsOnFrontier\` for windows ${COST_WINDOWS.map((w) => w.key).join(', ')}; the default run adds the public sessions under \`value.public.<window>\`.`,
    '',
    `**Availability** (the measure of worth, \`bench/availability.ts\`): for each recorded model call, the salient things its recorded reply uses (file paths and names, code identifiers, numbers of 3+ digits, error codes, whole shell commands) that appeared earlier in the session, and of those the share that is anywhere in the prompt the policy sent for that call. It counts every way a policy loses something alike: pruning, compaction, output caps, sub-tasks, and steps a policy drops (a dropped call holds nothing). Pooled over calls, with a 90 % interval (percentile bootstrap over calls, ${BOOTSTRAP_RESAMPLES} resamples, seeded) and the counts of calls and needs.`,
    '',
    `**Need-based retention** (second view, \`bench/needRetention.ts\`): per compaction, the salient things replies after it use, up to the end of the session, that only the summarized past held, and the share the summary text holds verbatim (a need first used by a dropped step is lost). 90 % interval by bootstrap over compactions.`,
    '',
    `**On the frontier**: a point is beaten when another measured point (a peer or one of our swept settings) is cheaper by more than ${(COST_TIE * 100).toFixed(1)} % and its availability lies above the point's 90 % interval. \`defaultsOnFrontier\` is true when nothing beats our defaults. The target is true at every window, on both session sets.`,
    '',
    `**Cost**: every request as sent, through a prefix-cache model (\`bench/prefixCache.ts\`: longest common prefix with a request of the last ${CACHE_RULES.ttlSeconds} s, ${CACHE_RULES.minimum}-token minimum, ${CACHE_RULES.step}-token blocks) on the **recorded timestamps** (a request after a longer pause starts cold), at $${PRICES.input} / $${PRICES.cachedInput} / $${PRICES.output} per million input / cached input / output tokens. Our policy is the real core (\`runAgent\` with \`defaultSettings()\`) against a server of exactly the window; every policy's summaries come from one stand-in writer (\`bench/standInSummary.ts\`) that reads exactly the summary request the policy sends (serialization and caps included) and lists its specifics newest first within min(${SUMMARY_TOKENS}, 80 % of the request's output limit) tokens.`,
    '',
    '### The peers, from their current code',
    '',
    PEER_TABLE,
    '',
    `### The bench's sessions`,
    '',
    ...sessionSetSection(run, pictures, ''),
  ];
  if (run.public) out.push('### Public sessions nobody here recorded', '', ...sessionSetSection(run.public, pictures, 'public-'));
  return out.join('\n');
}
