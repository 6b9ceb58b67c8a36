// The points of cost against availability that no other point is both cheaper than and better than (the picture's line; the verdict itself is paired, in pairedVerdict.ts).

/** A point of the picture: cost against availability, with the interval. */
export interface FrontierPoint {
  key: string;
  label: string;
  cost: number;
  availability: number;
  low: number;
  high: number;
  kind: 'ours' | 'sweep' | 'peer';
}

/** The points no other point is both cheaper than and better than (point estimates; the verdict itself is paired), cheapest first. */
export function paretoFront(points: readonly FrontierPoint[]): FrontierPoint[] {
  return points.filter((p) => !points.some((q) => q !== p && q.cost <= p.cost && q.availability >= p.availability && (q.cost < p.cost || q.availability > p.availability))).sort((a, b) => a.cost - b.cost);
}
