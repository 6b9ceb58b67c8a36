// Training and test kept apart: for each family of sessions, our defaults are chosen from the candidate settings on the other families and judged against the peers on that one.
import { compare, PEER_KEYS, type PolicyBill } from './costBench';
import { beatsDefaults, type Beaten, type Comparison } from './pairedVerdict';

/**
 * How many points of availability one doubling of cost is worth when two candidates tie on the rule: the rule itself
 * trades 2 % of cost against about a point (a peer 2 % cheaper at equal availability beats, as does one a point
 * better at equal cost), so utility = 100 × availability − 50 × ln(cost).
 */
const POINTS_PER_LOG_COST = 50;

/** One window's bills over every session set: our candidate settings (the defaults among them as `ours`) and the peers. */
export interface WindowBills {
  candidates: Record<string, PolicyBill>;
  peers: Record<string, PolicyBill>;
}

/** A candidate's verdict against one peer on one family's sessions. */
export type FamilyVerdict = Comparison & { beaten: Beaten | null };

/** What the held-out family says about the candidate chosen without it. */
export interface HeldOut {
  family: string;
  /** Chosen on every other family. */
  chosen: string;
  cost: number;
  availability: number | null;
  /** The chosen candidate against each peer on the held-out family, as the peer compares with it. */
  versus: Record<string, FamilyVerdict>;
  /** Peers that beat the chosen candidate on the held-out family. */
  beatenBy: string[];
}

export interface LeaveOneOut {
  families: string[];
  heldOut: HeldOut[];
  /** The candidate chosen on all families: what the defaults should be. */
  chosenOnAll: string;
  /** No held-out family's choice is beaten by a peer there. */
  outOfSample: boolean;
  /**
   * Every held-out family with the candidate chosen without it, pooled: against each peer on all the sessions, paired
   * (the published out-of-sample figures).
   */
  pooled: Record<string, FamilyVerdict>;
}

/** The workloads of each family, from each workload's family. */
export function familyWorkloads(families: Readonly<Record<string, string>>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [workload, family] of Object.entries(families)) {
    const set = out.get(family) ?? new Set<string>();
    set.add(workload);
    out.set(family, set);
  }
  return out;
}

/** Cost and pooled availability of a bill over some workloads. */
function within(bill: PolicyBill, workloads: ReadonlySet<string>): { cost: number; availability: number | null } {
  const cost = Object.entries(bill.byWorkload).reduce((sum, [name, spent]) => sum + (workloads.has(name) ? spent.cost : 0), 0);
  const samples = bill.calls.filter((c) => workloads.has(c.workload));
  const needs = samples.reduce((sum, c) => sum + c.needs, 0);
  return { cost, availability: needs > 0 ? samples.reduce((sum, c) => sum + c.available, 0) / needs : null };
}

/** The tie-break: availability in points less the log of cost at the rule's rate. */
export function utility(cost: number, share: number | null): number {
  return 100 * (share ?? 0) - POINTS_PER_LOG_COST * Math.log(Math.max(cost, 1e-9));
}

/** Every candidate's verdict against every peer on every family, computed once. */
type Matrix = Map<string, Map<string, Record<string, FamilyVerdict>>>;

function verdictMatrix(bills: WindowBills, byFamily: ReadonlyMap<string, ReadonlySet<string>>): Matrix {
  const matrix: Matrix = new Map();
  for (const [candidate, bill] of Object.entries(bills.candidates)) {
    const families = new Map<string, Record<string, FamilyVerdict>>();
    for (const [family, workloads] of byFamily) {
      const versus: Record<string, FamilyVerdict> = {};
      for (const [peer, peerBill] of Object.entries(bills.peers)) {
        const comparison = compare(bill, peerBill, workloads);
        versus[peer] = { ...comparison, beaten: beatsDefaults(comparison) };
      }
      families.set(family, versus);
    }
    matrix.set(candidate, families);
  }
  return matrix;
}

/** Utility differences below this (points) are replay noise: a policy replayed twice differs by a few tokens. */
const UTILITY_TIE = 0.05;

/** How one candidate fares on the training families: beaten on how many, its utility on each and pooled. */
interface Standing {
  key: string;
  beaten: number;
  byFamily: Map<string, number>;
  pooled: number;
}

function standing(key: string, bill: PolicyBill, matrix: Matrix, byFamily: ReadonlyMap<string, ReadonlySet<string>>, training: readonly string[]): Standing {
  const beaten = training.filter((family) => Object.values(matrix.get(key)?.get(family) ?? {}).some((v) => v.beaten)).length;
  const perFamily = new Map(training.map((family) => {
    const mine = within(bill, byFamily.get(family) ?? new Set());
    return [family, utility(mine.cost, mine.availability)] as const;
  }));
  const pooled = within(bill, new Set(training.flatMap((family) => [...(byFamily.get(family) ?? [])])));
  return { key, beaten, byFamily: perFamily, pooled: utility(pooled.cost, pooled.availability) };
}

/**
 * The candidate chosen on some families. The defaults (`ours`) stay unless another candidate is beaten by a peer on
 * fewer of them (each family judged on its own sessions by the paired rule, as the held-out one will be; several
 * peers beating it on one family count once, so peers that behave alike, as all do at 1M where none compacts, do
 * not outvote the rest), or on as few while its utility is at least the defaults' on every one of them and higher
 * on their sessions pooled: a change must help each agent's sessions, not only their pool. Among several such
 * candidates, the fewest beaten, then the highest pooled utility.
 */
export function choose(bills: WindowBills, matrix: Matrix, byFamily: ReadonlyMap<string, ReadonlySet<string>>, training: readonly string[]): string {
  const all = Object.entries(bills.candidates).map(([key, bill]) => standing(key, bill, matrix, byFamily, training));
  const incumbent = all.find((entry) => entry.key === 'ours');
  if (!incumbent) return all.sort((a, b) => a.beaten - b.beaten || b.pooled - a.pooled)[0]?.key ?? 'ours';
  const improves = (entry: Standing): boolean =>
    entry.beaten < incumbent.beaten ||
    (entry.beaten === incumbent.beaten && entry.pooled > incumbent.pooled + UTILITY_TIE && training.every((family) => (entry.byFamily.get(family) ?? 0) >= (incumbent.byFamily.get(family) ?? 0) - UTILITY_TIE));
  const better = all.filter((entry) => entry.key !== 'ours' && improves(entry)).sort((a, b) => a.beaten - b.beaten || b.pooled - a.pooled);
  return better[0]?.key ?? 'ours';
}

/** Every candidate on every family: the peers that beat it there and its utility there (the table behind each choice). */
export function candidateStandings(bills: WindowBills, families: Readonly<Record<string, string>>): Record<string, Record<string, { beatenBy: string[]; utility: number }>> {
  const byFamily = familyWorkloads(families);
  const matrix = verdictMatrix(bills, byFamily);
  return Object.fromEntries(
    Object.entries(bills.candidates).map(([key, bill]) => [
      key,
      Object.fromEntries(
        [...byFamily].map(([family, workloads]) => {
          const mine = within(bill, workloads);
          return [family, { beatenBy: Object.entries(matrix.get(key)?.get(family) ?? {}).flatMap(([peer, v]) => (v.beaten ? [peer] : [])), utility: Math.round(utility(mine.cost, mine.availability) * 100) / 100 }];
        }),
      ),
    ]),
  );
}

/** Leave one family out at one window: choose on the others, judge on it, for every family; and the choice on all. */
export function leaveOneFamilyOut(bills: WindowBills, families: Readonly<Record<string, string>>): LeaveOneOut {
  const byFamily = familyWorkloads(families);
  const names = [...byFamily.keys()].sort();
  const matrix = verdictMatrix(bills, byFamily);
  const heldOut = names.map((family): HeldOut => {
    const chosen = choose(bills, matrix, byFamily, names.filter((name) => name !== family));
    const versus = matrix.get(chosen)?.get(family) ?? {};
    const mine = within(bills.candidates[chosen] as PolicyBill, byFamily.get(family) ?? new Set());
    return { family, chosen, cost: mine.cost, availability: mine.availability, versus, beatenBy: PEER_KEYS.filter((peer) => versus[peer]?.beaten) };
  });
  return { families: names, heldOut, chosenOnAll: choose(bills, matrix, byFamily, names), outOfSample: heldOut.every((entry) => entry.beatenBy.length === 0), pooled: pooledHeldOut(bills, byFamily, heldOut) };
}

/**
 * The held-out choices as one bill: each family's calls and costs from the candidate chosen without it. Against each
 * peer on the same calls, so each session is judged only by a choice made without its family.
 */
export function pooledHeldOut(bills: WindowBills, byFamily: ReadonlyMap<string, ReadonlySet<string>>, heldOut: readonly HeldOut[]): Record<string, FamilyVerdict> {
  const first = heldOut[0] ? bills.candidates[heldOut[0].chosen] : undefined;
  if (!first) return {};
  const pooled: PolicyBill = { ...first, cost: 0, costWritePremium: 0, calls: [], byWorkload: {} };
  for (const entry of heldOut) {
    const bill = bills.candidates[entry.chosen];
    const workloads = byFamily.get(entry.family) ?? new Set<string>();
    if (!bill) continue;
    pooled.calls.push(...bill.calls.filter((c) => workloads.has(c.workload)));
    for (const [name, spent] of Object.entries(bill.byWorkload)) {
      if (!workloads.has(name)) continue;
      pooled.byWorkload[name] = spent;
      pooled.cost += spent.cost;
      pooled.costWritePremium += spent.costWritePremium;
    }
  }
  return Object.fromEntries(
    Object.entries(bills.peers).map(([peer, peerBill]) => {
      const comparison = compare(pooled, peerBill);
      return [peer, { ...comparison, beaten: beatsDefaults(comparison) }];
    }),
  );
}

/**
 * The peer that comes closest to the chosen candidate on its held-out family: the most points of paired availability
 * less 50 per unit of relative cost (the rule's rate, linear around the candidate, so a peer that drops every call
 * for next to nothing does not look close).
 */
export function nearestPeer(entry: Pick<HeldOut, 'versus'>): string | null {
  let best: { key: string; score: number } | null = null;
  for (const [key, verdict] of Object.entries(entry.versus)) {
    if (verdict.pairedAvailabilityDelta === null) continue;
    const score = 100 * verdict.pairedAvailabilityDelta - POINTS_PER_LOG_COST * verdict.costDelta;
    if (!best || score > best.score) best = { key, score };
  }
  return best?.key ?? null;
}

/** Bills of several session sets merged per policy, as far as the choice reads them: costs and calls by workload (names are distinct across sets). */
export function mergeBills(parts: ReadonlyArray<Record<string, PolicyBill>>): Record<string, PolicyBill> {
  const out: Record<string, PolicyBill> = {};
  for (const part of parts) {
    for (const [key, bill] of Object.entries(part)) {
      const into = out[key];
      if (!into) {
        out[key] = { ...bill, calls: [...bill.calls], byWorkload: { ...bill.byWorkload } };
        continue;
      }
      into.cost += bill.cost;
      into.costWritePremium += bill.costWritePremium;
      into.calls.push(...bill.calls);
      Object.assign(into.byWorkload, bill.byWorkload);
    }
  }
  return out;
}

