// The value bench's figures: rows with targets, the JSON under `value`, and the leave-one-family-out verdict over every session set of the run.
import { availability, billsOf, COST_WINDOWS, defaultsOnFrontier, needShare, PEER_KEYS, POLICY_LABELS, verdicts, type CostRun, type PolicyBill } from './costBench';
import { row, type BenchRow } from './benchReport';
import { candidateStandings, leaveOneFamilyOut, mergeBills, nearestPeer, type LeaveOneOut, type WindowBills } from './leaveOneOut';
import { pooledNeeds } from './needRetention';

const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
const round = (value: number, places = 4): number => Math.round(value * 10 ** places) / 10 ** places;
const points = (value: number | null): string => (value === null ? 'n/a' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}`);
const percent = (value: number | null): string => (value === null ? 'n/a' : `${(value * 100).toFixed(value >= 0.995 && value < 1 ? 1 : 0)} %`);
const money = (value: number): string => `$${value.toFixed(value < 1 ? 3 : 2)}`;

/** The runs of a default run: the bench sessions and, when present, the public ones. */
function runsOf(run: CostRun): CostRun[] {
  return [run, ...(run.public ? [run.public] : [])];
}

/** Each workload's family over every set of the run. */
export function runFamilies(run: CostRun): Record<string, string> {
  return Object.fromEntries(runsOf(run).flatMap((r) => r.workloads.map((w) => [w.name, w.family] as const)));
}

/** One window's candidates (ours and the swept settings) and peers over every set of the run. */
export function windowBills(run: CostRun, window: string): WindowBills | null {
  const runs = runsOf(run);
  if (runs.some((r) => !r.bills[window]?.ours)) return null;
  const candidates = mergeBills(runs.map((r) => ({ ours: r.bills[window]?.ours as PolicyBill, ...r.sweep[window] })));
  const peers = mergeBills(runs.map((r) => Object.fromEntries(Object.entries(r.bills[window] ?? {}).filter(([key]) => PEER_KEYS.includes(key)))));
  return { candidates, peers };
}

/** Leave-one-out results already computed, per run. */
const computed = new WeakMap<CostRun, Record<string, LeaveOneOut>>();

/** Leave one family out at every window of the run (none at a window with fewer than two families or no candidates). */
export function leaveOneOutByWindow(run: CostRun): Record<string, LeaveOneOut> {
  const known = computed.get(run);
  if (known) return known;
  const families = runFamilies(run);
  const out: Record<string, LeaveOneOut> = {};
  computed.set(run, out);
  if (new Set(Object.values(families)).size < 2) return out;
  for (const window of COST_WINDOWS) {
    const bills = windowBills(run, window.key);
    if (bills && Object.keys(bills.candidates).length > 1) out[window.key] = leaveOneFamilyOut(bills, families);
  }
  return out;
}

/** The figures under stable keys: cost.<window>.<policy>.<figure>. */
export function costFigures(run: CostRun): Record<string, number | null> {
  const figures: Record<string, number | null> = {};
  for (const window of Object.keys(run.bills)) {
    const judged = verdicts(run, window);
    for (const [policy, bill] of billsOf(run, window)) {
      const key = `cost.${window}.${policy}`;
      const a = availability(bill);
      figures[`${key}.promptTokens`] = bill.promptTokens;
      figures[`${key}.cachedShare`] = share(bill.cachedTokens, bill.promptTokens);
      figures[`${key}.outputTokens`] = bill.outputTokens;
      figures[`${key}.summaryCalls`] = bill.summaryCalls;
      figures[`${key}.cost`] = round(bill.cost);
      figures[`${key}.costWritePremium`] = round(bill.costWritePremium);
      figures[`${key}.availability`] = a.value;
      figures[`${key}.needRetention`] = pooledNeeds(bill.needs).verbatim;
      figures[`${key}.compactions`] = bill.compactions;
      figures[`${key}.prunes`] = bill.prunes;
      figures[`${key}.dropped`] = bill.dropped;
      const verdict = judged[policy];
      if (verdict) figures[`${key}.pairedAvailabilityDelta`] = verdict.pairedAvailabilityDelta;
    }
  }
  return figures;
}

/** One judged row per window and set (the defaults on the frontier by the paired rule), then one per window out of sample. */
export function costRows(run: CostRun): BenchRow[] {
  const lofo = leaveOneOutByWindow(run);
  return [...windowRows(run, ''), ...(run.public ? windowRows(run.public, 'public.') : []), ...lofoRows(lofo)];
}

function windowRows(run: CostRun, keyPrefix: string): BenchRow[] {
  return COST_WINDOWS.filter((w) => run.bills[w.key]).map((window) => {
    const judged = verdicts(run, window.key);
    const on = defaultsOnFrontier(run, window.key, judged);
    const ours = run.bills[window.key]?.ours;
    const a = ours ? availability(ours) : null;
    const beaten = PEER_KEYS.filter((key) => judged[key]?.beaten).map((key) => `${POLICY_LABELS[key] ?? key} (${judged[key]?.beaten}: ${points(judged[key]?.costDelta ?? null)} % cost, ${points(judged[key]?.pairedAvailabilityDelta ?? null)} points)`);
    return row({
      key: `value.${keyPrefix}${window.key}.defaultsOnFrontier`,
      label: `8. defaults not beaten by a peer at ${window.label} (${run.sessions}, paired rule)`,
      value: on === null ? null : on ? 1 : 0,
      unit: '',
      target: 'not beaten (1)',
      met: on,
      detail: ours && a ? `ours ${money(ours.cost)} at ${percent(a.value)} (${percent(a.low)}–${percent(a.high)})${beaten.length > 0 ? `; beaten by ${beaten.join(', ')}` : '; no peer is 2 % cheaper at equal availability or a point better at no more cost'}` : 'ours not replayed',
    });
  });
}

/** The nearest peer against the held-out choices pooled over every family, as text. */
function pooledText(result: LeaveOneOut): string {
  const nearest = nearestPeer({ versus: result.pooled });
  const v = nearest ? result.pooled[nearest] : undefined;
  if (!nearest || !v) return '';
  return `; pooled out of sample, nearest peer ${POLICY_LABELS[nearest] ?? nearest}: ${points(v.costDelta)} % cost, ${points(v.pairedAvailabilityDelta)} points (${points(v.pairedLow)} … ${points(v.pairedHigh)})${v.beaten ? `, beats them (${v.beaten})` : ''}`;
}

function lofoRows(lofo: Record<string, LeaveOneOut>): BenchRow[] {
  return COST_WINDOWS.filter((w) => lofo[w.key]).map((window) => {
    const result = lofo[window.key] as LeaveOneOut;
    const beaten = result.heldOut.filter((entry) => entry.beatenBy.length > 0).map((entry) => `${entry.family}: ${entry.chosen} beaten by ${entry.beatenBy.join(', ')}`);
    return row({
      key: `value.lofo.${window.key}.outOfSample`,
      label: `8. defaults chosen without a family not beaten on it at ${window.label} (leave one family out, ${result.families.length} families)`,
      value: result.outOfSample ? 1 : 0,
      unit: '',
      target: 'not beaten (1)',
      met: result.outOfSample,
      detail: `${result.heldOut.map((entry) => `${entry.family} → ${entry.chosen}`).join(', ')}; chosen on all: ${result.chosenOnAll}${beaten.length > 0 ? `; ${beaten.join('; ')}` : ''}${pooledText(result)}`,
    });
  });
}

/** The JSON of one set: per window and policy its figures, and against the defaults the paired comparison. */
function setValue(run: CostRun): Record<string, Record<string, unknown>> {
  const value: Record<string, Record<string, unknown>> = {};
  for (const window of Object.keys(run.bills)) {
    const judged = verdicts(run, window);
    const entry: Record<string, unknown> = {};
    for (const [policy, bill] of billsOf(run, window)) {
      const a = availability(bill);
      const n = needShare(bill);
      const verdict = judged[policy];
      entry[policy] = {
        cost: round(bill.cost),
        costWritePremium: round(bill.costWritePremium),
        availability: a.value,
        availabilityLow: a.low,
        availabilityHigh: a.high,
        ...(verdict
          ? {
              costDelta: round(verdict.costDelta),
              costDeltaWritePremium: round(verdict.costDeltaWritePremium),
              pairedAvailabilityDelta: verdict.pairedAvailabilityDelta,
              pairedLow: verdict.pairedLow,
              pairedHigh: verdict.pairedHigh,
              beatsDefaults: verdict.beaten,
            }
          : {}),
        calls: a.units,
        callNeeds: a.needs,
        dropped: bill.dropped,
        needRetention: n.value,
        needRetentionLow: n.low,
        needRetentionHigh: n.high,
        needs: n.needs,
        compactions: bill.compactions,
        prunes: bill.prunes,
        refusals: bill.refusals,
        cachedShare: share(bill.cachedTokens, bill.promptTokens),
      };
    }
    entry.defaultsOnFrontier = defaultsOnFrontier(run, window, judged);
    entry.beatenBy = PEER_KEYS.filter((key) => judged[key]?.beaten);
    value[window] = entry;
  }
  return value;
}

/**
 * The headline under `value`: per window and policy `cost`, `availability` with its interval, and against the
 * defaults `costDelta`, `pairedAvailabilityDelta`, `pairedLow`, `pairedHigh`; per window `defaultsOnFrontier`;
 * `public` for the public sessions; `lofo` per window with each held-out family's choice and verdict.
 */
export function costValue(run: CostRun): Record<string, unknown> {
  const value: Record<string, unknown> = setValue(run);
  if (run.public) value.public = setValue(run.public);
  const lofo = leaveOneOutByWindow(run);
  if (Object.keys(lofo).length > 0) {
    const families = runFamilies(run);
    value.lofo = Object.fromEntries(
      Object.entries(lofo).map(([window, result]) => {
        const bills = windowBills(run, window) as WindowBills;
        const heldOut = result.heldOut.map((entry) => ({ ...entry, nearestPeer: nearestPeer(entry) }));
        return [window, { families: result.families, chosenOnAll: result.chosenOnAll, defaultsAreChoice: result.chosenOnAll === 'ours', outOfSample: result.outOfSample, heldOut, pooled: result.pooled, pooledNearestPeer: nearestPeer({ versus: result.pooled }), candidates: candidateStandings(bills, families) }];
      }),
    );
  }
  return value;
}
