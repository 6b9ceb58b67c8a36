// The frontier of cost against availability: the points no other point beats, cheaper and better beyond its interval.

/** A point of the frontier: cost against availability, with the interval. */
export interface FrontierPoint {
  key: string;
  label: string;
  cost: number;
  availability: number;
  low: number;
  high: number;
  kind: 'ours' | 'sweep' | 'peer';
}

/** Cost differences below this share count as ties: replays of one policy vary by a few tokens (fresh ids in read-back notes). */
export const COST_TIE = 0.005;

/**
 * Whether `a` beats `b`: cheaper (beyond a tie) and better on availability beyond `b`'s 90 % interval (a's share above
 * b's upper bound). A point nothing beats is on the frontier.
 */
export function dominates(a: FrontierPoint, b: FrontierPoint): boolean {
  return a.cost < b.cost * (1 - COST_TIE) && a.availability > b.high;
}

/** The points no other point dominates, cheapest first. */
export function frontier(points: readonly FrontierPoint[]): FrontierPoint[] {
  return points.filter((p) => !points.some((q) => q !== p && dominates(q, p))).sort((a, b) => a.cost - b.cost);
}
