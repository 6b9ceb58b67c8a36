// Finds the entries whose parent links loop (an entry that is its own parent, a→b→a, longer rings) so they can be set aside.
import type { SessionEntry } from './entries';
import { clipText } from './warningSummary';

/** Why an entry was found to close a loop, by its position in `entries`. */
export type LoopingEntries = Map<number, string>;

/**
 * In an append-only log every parent comes before its child, so a ring of parent links must contain at least
 * one link pointing forward in the file (or an entry naming itself). Those links are the damage: the entries
 * holding them are reported; the rest of the ring keeps loading. Ids must be unique; `leaf` moves are no
 * nodes, so they are neither followed nor reported. Linear in the number of entries, whatever the links.
 */
export function loopingEntries(entries: readonly SessionEntry[]): LoopingEntries {
  const found: LoopingEntries = new Map();
  const position = new Map<string, number>();
  entries.forEach((entry, index) => {
    if (entry.type !== 'leaf') position.set(entry.id, index);
  });
  const parentOf = (index: number): number | undefined => {
    const entry = entries[index];
    if (!entry || entry.type === 'leaf' || entry.parentId === null) return undefined;
    return position.get(entry.parentId);
  };
  // 0: not visited, 1: on the walk in progress, 2: finished.
  const state = new Uint8Array(entries.length);
  for (let start = 0; start < entries.length; start++) {
    if (state[start] !== 0) continue;
    const walk: number[] = [];
    let at: number | undefined = start;
    while (at !== undefined && state[at] === 0) {
      state[at] = 1;
      walk.push(at);
      at = parentOf(at);
    }
    if (at !== undefined && state[at] === 1) reportRing(entries, walk.slice(walk.indexOf(at)), parentOf, found);
    for (const index of walk) state[index] = 2;
  }
  return found;
}

/** How many ids a ring's description names; the rest is a count, so each warning stays short whatever the ring's length. */
const RING_NAMED = 4;

/** One description per ring, shared by all its warnings: its first ids and its length. */
function describeRing(entries: readonly SessionEntry[], ring: readonly number[]): string {
  const named = ring.slice(0, RING_NAMED).map((index) => clipText(entries[index]?.id ?? '?', 80)).join(' → ');
  return ring.length > RING_NAMED ? `${named} → … (${ring.length} entries)` : named;
}

function reportRing(entries: readonly SessionEntry[], ring: readonly number[], parentOf: (index: number) => number | undefined, found: LoopingEntries): void {
  const loop = describeRing(entries, ring);
  for (const index of ring) {
    const parent = parentOf(index) ?? -1;
    const id = clipText(entries[index]?.id ?? '?', 80);
    if (parent === index) found.set(index, `entry ${id} names itself as its parent`);
    else if (parent > index) found.set(index, `entry ${id} has a parent later in the file, closing a loop of parents (${loop})`);
  }
}
