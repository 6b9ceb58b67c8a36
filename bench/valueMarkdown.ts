// The value bench's section of BENCHMARKS.md and its pictures: how it is measured, the peers with their sources, per set and window a table against the defaults, and the leave-one-family-out table.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { BOOTSTRAP_RESAMPLES } from './availability';
import { availability, billsOf, COST_WINDOWS, defaultsOnFrontier, needShare, PEER_KEYS, POLICY_LABELS, verdicts, type CostRun, type PolicyBill, type Verdict } from './costBench';
import type { FrontierPoint } from './frontier';
import { frontierSvg } from './frontierSvg';
import { pooledNeeds } from './needRetention';
import { BLOCK_CALLS, VERDICT } from './pairedVerdict';
import { PEER_TABLE } from './peerTable';
import { CACHE_RULES, PRICES, WRITE_PREMIUM_PRICES } from './prefixCache';
import { CLAUDE_CODE_SUMMARY_TOKENS, OURS_SUMMARY_TOKENS } from './summaryLengths';
import { leaveOneOutByWindow, runFamilies, windowBills } from './valueReport';
import { nearestPeer, type FamilyVerdict } from './leaveOneOut';

const millions = (tokens: number): string => `${(tokens / 1e6).toFixed(2)} M`;
const percent = (value: number | null | undefined): string => (value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(value >= 0.995 && value < 1 ? 1 : 0)} %`);
const money = (value: number): string => `$${value.toFixed(value < 1 ? 3 : 2)}`;
const signed = (value: number | null | undefined, digits = 1): string => (value === null || value === undefined ? 'n/a' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(digits)}`);
const label = (key: string): string => POLICY_LABELS[key] ?? key;

/** The points of one window's picture: cost against availability with its interval. */
export function frontierPoints(run: CostRun, window: string): FrontierPoint[] {
  return billsOf(run, window).map(([key, bill]) => {
    const share = availability(bill);
    const kind: FrontierPoint['kind'] = key === 'ours' ? 'ours' : PEER_KEYS.includes(key) ? 'peer' : 'sweep';
    return { key, label: label(key), cost: bill.cost, availability: share.value ?? 1, low: share.low ?? 1, high: share.high ?? 1, kind };
  });
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

/** Availability as text: share, interval, calls and needs. */
function availabilityText(bill: PolicyBill): string {
  const a = availability(bill);
  if (a.value === null) return 'n/a (no call needed anything seen earlier)';
  return `${percent(a.value)} (${percent(a.low)}–${percent(a.high)}; ${a.units} calls, ${a.needs} needs${bill.dropped > 0 ? `, ${bill.dropped} calls dropped` : ''})`;
}

/** Need-based retention as text: verbatim share with its interval, and the recoverable share. */
function needText(bill: PolicyBill): string {
  const needs = pooledNeeds(bill.needs);
  if (needs.needs === 0) return bill.compactions === 0 ? 'n/a (no compaction)' : 'n/a (no needs)';
  const n = needShare(bill);
  return `${percent(needs.verbatim)} (${percent(n.low)}–${percent(n.high)})${needs.recoverable ? `, +${percent(needs.recoverable)} recoverable` : ''}`;
}

/** The verdict cell: how the policy compares with the defaults on the same calls. */
function verdictText(verdict: Verdict | undefined, key: string): string {
  if (!verdict) return 'the defaults';
  const cheaper = Math.min(verdict.costDelta, verdict.costDeltaWritePremium) <= -VERDICT.cheaper;
  const equal = (verdict.pairedLow ?? -1) > VERDICT.equalLow;
  const better = (verdict.pairedAvailabilityDelta ?? 0) > VERDICT.better;
  const what = verdict.beaten ? `**${verdict.beaten}**` : cheaper && !equal ? 'cheaper, less available' : better ? 'better, dearer' : cheaper || equal ? 'not cheaper enough at equal availability' : 'dearer or less available';
  return PEER_KEYS.includes(key) ? what : `${what} (candidate)`;
}

/** The table of one window: every policy and swept setting against the defaults. */
function windowTable(run: CostRun, window: string): string[] {
  const judged = verdicts(run, window);
  const lines = [
    '| policy | cost (write premium) | Δ cost vs defaults (write premium) | availability (90 % interval; calls, needs) | paired Δ availability, points (90 % interval) | against the defaults | need-based retention | prompt tokens, cached | summary calls | compactions / prunes / refusals |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [key, bill] of billsOf(run, window)) {
    const v = judged[key];
    const name = key === 'ours' ? `**${label(key)}**` : label(key);
    const delta = v ? `${signed(v.costDelta)} % (${signed(v.costDeltaWritePremium)} %)` : '—';
    const paired = v ? `${signed(v.pairedAvailabilityDelta)} (${signed(v.pairedLow)} … ${signed(v.pairedHigh)})` : '—';
    lines.push(`| ${name} | ${money(bill.cost)} (${money(bill.costWritePremium)}) | ${delta} | ${availabilityText(bill)} | ${paired} | ${verdictText(v, key)} | ${needText(bill)} | ${millions(bill.promptTokens)}, ${percent(bill.promptTokens > 0 ? bill.cachedTokens / bill.promptTokens : null)} | ${bill.summaryCalls} | ${bill.compactions} / ${bill.prunes} / ${bill.refusals} |`);
  }
  return lines;
}

/** Where the defaults sit at one window, in one sentence with every number from the run. */
export function defaultsSentence(run: CostRun, window: string): string {
  const ours = run.bills[window]?.ours;
  if (!ours) return 'ours not replayed';
  const judged = verdicts(run, window);
  const a = availability(ours);
  const where = `**${COST_WINDOWS.find((w) => w.key === window)?.label ?? window}:** defaults ${money(ours.cost)} at ${percent(a.value)} availability (${percent(a.low)}–${percent(a.high)})`;
  const beaten = PEER_KEYS.filter((key) => judged[key]?.beaten);
  const describe = (key: string): string => `${label(key)} (${signed(judged[key]?.costDelta)} % cost, ${signed(judged[key]?.pairedAvailabilityDelta)} points, ${signed(judged[key]?.pairedLow)} … ${signed(judged[key]?.pairedHigh)})`;
  if (beaten.length > 0) return `${where}: **beaten** by ${beaten.map((key) => `${describe(key)}: ${judged[key]?.beaten}`).join('; ')}.`;
  const closest = [...PEER_KEYS].filter((key) => judged[key]).sort((x, y) => (judged[x]?.costDelta ?? 0) - (judged[y]?.costDelta ?? 0));
  const cheaper = closest.filter((key) => (judged[key]?.costDelta ?? 0) < 0);
  return `${where}: no peer beats them${cheaper.length > 0 ? `; cheaper peers: ${cheaper.map(describe).join(', ')}` : '; every peer costs more'}.`;
}

/** One session set's part of the section: what was replayed, a table and picture per window, where the defaults sit. */
function sessionSetSection(run: CostRun, pictures: string, prefix: string): string[] {
  const calls = run.workloads.reduce((sum, w) => sum + w.calls, 0);
  const out: string[] = [
    `Replayed: ${run.workloads.map((w) => `\`${w.name}\` (${w.family}; ${w.calls} model calls, ${w.turns} user turns${w.source ? `; ${w.source}` : ''})`).join(', ')}: ${calls} recorded model calls in all, in ${run.seconds.toFixed(0)} s.`,
    '',
  ];
  for (const window of COST_WINDOWS.filter((w) => run.bills[w.key])) {
    out.push(`#### ${window.label} window, ${run.sessions}`, '', `![${window.label}, ${run.sessions}](${pictures}/${prefix}frontier-${window.label}.svg)`, '', ...windowTable(run, window.key), '');
    out.push(`\`value.${prefix ? 'public.' : ''}${window.key}.defaultsOnFrontier\`: **${String(defaultsOnFrontier(run, window.key))}**.`, '');
  }
  out.push(`**Where the defaults sit, ${run.sessions} (in sample):**`, '', ...COST_WINDOWS.filter((w) => run.bills[w.key]).map((w) => `- ${defaultsSentence(run, w.key)}`), '');
  return out;
}

/** The leave-one-family-out table: per window and held-out family, the choice made without it and how it fares there. */
export function leaveOneOutSection(run: CostRun): string[] {
  const lofo = leaveOneOutByWindow(run);
  if (Object.keys(lofo).length === 0) return [];
  const families = runFamilies(run);
  const out = [
    '### Out of sample: leave one family out (the published verdict)',
    '',
    `Families (the agent whose users recorded the sessions, from each file's name and header): ${[...new Set(Object.values(families))].sort().map((family) => `${family} (${Object.values(families).filter((f) => f === family).length} sessions)`).join(', ')}. For each family and window, the defaults are chosen from the candidates (our current defaults and every swept setting) on all the other families, then judged against every peer on the held-out family by the paired rule. The choice: the defaults stay unless another candidate is beaten by a peer on fewer training families (each judged on its own sessions), or on as few while its utility, 100 × availability − 50 × ln(cost), is at least theirs on every training family and higher on their sessions pooled (the rule trades 2 % of cost against about a point).`,
    '',
    '| window | held out | chosen on the others | its cost, availability there | nearest peer there: Δ cost, paired Δ availability (90 % interval) | beaten by |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const window of COST_WINDOWS.filter((w) => lofo[w.key])) {
    const result = lofo[window.key];
    const bills = windowBills(run, window.key);
    if (!result || !bills) continue;
    for (const entry of result.heldOut) {
      const nearest = nearestPeer(entry);
      const v = nearest ? entry.versus[nearest] : undefined;
      const vs = nearest && v ? `${label(nearest)}: ${signed(v.costDelta)} % (${signed(v.costDeltaWritePremium)} %), ${signed(v.pairedAvailabilityDelta)} (${signed(v.pairedLow)} … ${signed(v.pairedHigh)})` : 'n/a';
      out.push(`| ${window.label} | ${entry.family} | ${label(entry.chosen)} | ${money(entry.cost)}, ${percent(entry.availability)} | ${vs} | ${entry.beatenBy.length > 0 ? `**${entry.beatenBy.map(label).join(', ')}**` : 'none'} |`);
    }
  }
  out.push('', '**Out of sample, every held-out family pooled** (each session judged by the choice made without its family, against each peer on the same calls: Δ cost, with the cache-write premium in brackets, and paired Δ availability with its 90 % interval):', '');
  for (const window of COST_WINDOWS.filter((w) => lofo[w.key])) {
    const pooled = lofo[window.key]?.pooled ?? {};
    const nearest = nearestPeer({ versus: pooled });
    const peers = PEER_KEYS.filter((key) => pooled[key]).map((key) => {
      const v = pooled[key] as FamilyVerdict;
      return `${key === nearest ? '**' : ''}${label(key)}${key === nearest ? '** (nearest)' : ''} ${signed(v.costDelta)} % (${signed(v.costDeltaWritePremium)} %), ${signed(v.pairedAvailabilityDelta)} (${signed(v.pairedLow)} … ${signed(v.pairedHigh)})${v.beaten ? `: **beats them, ${v.beaten}**` : ''}`;
    });
    out.push(`- **${window.label}**: ${peers.join('; ')}.`);
  }
  out.push('', ...COST_WINDOWS.filter((w) => lofo[w.key]).map((w) => `- **${w.label}**: chosen on all families: ${label(lofo[w.key]?.chosenOnAll ?? 'ours')}${lofo[w.key]?.chosenOnAll === 'ours' ? ' (the shipped defaults)' : ' (**not** the shipped defaults)'}; \`value.lofo.${w.key}.outOfSample\`: **${String(lofo[w.key]?.outOfSample)}**.`), '');
  return out;
}

/**
 * The whole markdown of the value section for BENCHMARKS.md: how it is measured, the peers with their sources, the
 * out-of-sample table, then per session set one table and picture per window. Every figure is interpolated from `run`
 * or from the constants the bench uses.
 */
export function costMarkdownSection(run: CostRun): string {
  const pictures = 'docs/bench';
  const out: string[] = [
    '## Value: cost against availability (row 8)',
    '',
    `Row 8 is its own family (\`bench/costBench.ts\`): \`npm run bench -- --only=value\` runs it alone (${(run.seconds + (run.public?.seconds ?? 0)).toFixed(0)} s of replay in this run), \`--quick\` replays the first 12 user turns of our sessions and the first 40 calls of each public one, \`--no-sweep\` skips our swept settings (and with them the leave-one-family-out table), \`--sessions <folder>\` replays any folder of pi-format session JSONL (\`.jsonl\` or \`.jsonl.gz\`) instead. \`--json\` carries \`value.<window>.<policy>.{cost, costWritePremium, availability, availabilityLow, availabilityHigh, costDelta, pairedAvailabilityDelta, pairedLow, pairedHigh}\` and \`value.<window>.defaultsOnFrontier\` for windows ${COST_WINDOWS.map((w) => w.key).join(', ')}; the default run adds the public sessions under \`value.public.<window>\` and the leave-one-family-out verdict under \`value.lofo.<window>\`.`,
    '',
    `**Availability** (the measure of worth, \`bench/availability.ts\`): for each recorded model call, the salient things its recorded reply uses (file paths and names, code identifiers, numbers of 3+ digits, error codes, whole shell commands) that appeared earlier in the session, and of those the share that is anywhere in the prompt the policy sent for that call. Every way a policy loses something counts alike: pruning, compaction, output caps, and steps a policy drops (a dropped call holds nothing). Pooled over calls; the 90 % interval is a percentile bootstrap (${BOOTSTRAP_RESAMPLES} resamples, seeded) over blocks of ${BLOCK_CALLS} consecutive calls of one session: neighbouring calls share files and context state, so calls are not independent, and the bench's own set has too few sessions to resample whole ones.`,
    '',
    `**The verdict** (\`bench/pairedVerdict.ts\`): every policy replays the same recorded calls, so each is compared with the defaults **paired**: the difference of pooled availability on the same resampled blocks, with its 90 % interval, and the cost difference. A policy **beats the defaults** when it is at least ${(VERDICT.cheaper * 100).toFixed(0)} % cheaper and the low end of its paired interval is above ${signed(VERDICT.equalLow)} points ("cheaper at equal availability"), or when its paired difference is above ${signed(VERDICT.better, 0)} point at no more cost ("better at no more cost"), under either price table. \`defaultsOnFrontier\` is true when no peer beats them; our swept settings are candidates for the choice of defaults, judged in the leave-one-family-out table, and shown here with the same figures.`,
    '',
    `**Need-based retention** (second view, \`bench/needRetention.ts\`): per compaction, the salient things replies after it use that only the summarized past held, and the share the summary text holds verbatim.`,
    '',
    `**One race for all.** Every request of every policy is fit-tested as vLLM, OpenAI and Anthropic fit-test it: prompt plus the output it asks for (its max_tokens, as each policy's code sets it) within the window, or the server refuses it (a policy then compacts and retries once; a step still refused is dropped, a summary request refused leaves the context as it was). A user turn the recording ends without a reply of its own is stopped after its last tool result for every policy: no policy makes a call the recording did not make. Replies, the closing ones too, are fitted to what a model at the window could write, the same for every policy.`,
    '',
    `**Cost**: every request as sent, through a prefix-cache model (\`bench/prefixCache.ts\`: longest common prefix with a request of the last ${CACHE_RULES.ttlSeconds} s, ${CACHE_RULES.minimum}-token minimum, ${CACHE_RULES.step}-token blocks) on the **recorded timestamps**, at two price tables: $${PRICES.input} / $${PRICES.cachedInput} / $${PRICES.output} per million uncached input / cached input / output tokens (OpenAI's way: no charge to write the cache), and the same with uncached input at $${WRITE_PREMIUM_PRICES.input} (Anthropic bills cache writes at 1.25×). Our policy is the real core (\`runAgent\` with \`defaultSettings()\`) against a server of exactly the window; every policy's summaries come from one stand-in writer (\`bench/standInSummary.ts\`) that reads exactly the summary request the policy sends and lists its specifics newest first, at the length the policy's prompt produces as measured on recorded summaries (\`bench/summaryLengths.ts\`: ${OURS_SUMMARY_TOKENS} tokens for pi's concise checkpoint, which ours and OpenCode's stand in for, ${CLAUDE_CODE_SUMMARY_TOKENS} for Claude Code's analysis and summary), within 80 % of the request's own output limit.`,
    '',
    '### The peers, from their current code',
    '',
    PEER_TABLE,
    '',
    ...leaveOneOutSection(run),
    `### The bench's sessions`,
    '',
    ...sessionSetSection(run, pictures, ''),
  ];
  if (run.public) out.push('### Public sessions nobody here recorded', '', ...sessionSetSection(run.public, pictures, 'public-'));
  return out.join('\n');
}
