// Where an entry sits on a path a session tree handed out, answered by that tree (so no id map is built per path).
import type { SessionEntry } from './entries';
import { OwnedMemo } from './ownedMemo';

/** The depth of the entry with `id` below its root (its index on every root→leaf path through it), or undefined. */
export type DepthLookup = (id: string) => number | undefined;

const lookups = new OwnedMemo<readonly SessionEntry[], DepthLookup>('path depths');

/** Called by the tree for every path it returns. */
export function notePathDepths(path: readonly SessionEntry[], lookup: DepthLookup): void {
  lookups.set(path, lookup);
}

/** The lookup of the tree that returned `path`, when a tree did. The caller checks path[depth] is the entry asked for. */
export function pathDepths(path: readonly SessionEntry[]): DepthLookup | undefined {
  return lookups.get(path);
}
