// How many leading entries two paths of one session tree share, by binary search (on a chain sharing is prefix-closed).
import type { SessionEntry } from './entries';

/** The length of the longest common prefix of `held` and `path`, compared by identity. */
export function sharedPrefixLength(held: readonly SessionEntry[], path: readonly SessionEntry[]): number {
  const limit = Math.min(held.length, path.length);
  if (limit === 0 || held[limit - 1] === path[limit - 1]) return limit;
  let low = 0;
  let high = limit - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (held[middle] === path[middle]) low = middle + 1;
    else high = middle;
  }
  return low;
}
