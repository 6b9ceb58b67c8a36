// Linear-time wildcard matching (two pointers, no backtracking beyond the last star): used for globs and ignore rules.

/** One element of a pattern: a star (any run of items, possibly empty) or a test that consumes exactly one item. */
export type WildcardToken<T> = { star: true } | { star: false; test: (item: T) => boolean };

/**
 * True when `tokens` match all of `items`. Greedy with a single resume point (the last star seen), so the cost is
 * at most items × tokens tests: a pattern like `*a*a*a*a*b` cannot backtrack exponentially as a regex would.
 */
export function wildcardMatch<T>(tokens: readonly WildcardToken<T>[], items: readonly T[]): boolean {
  let token = 0;
  let item = 0;
  let starToken = -1;
  let starItem = 0;
  while (item < items.length) {
    const current = tokens[token];
    const value = items[item] as T;
    if (current !== undefined && current.star) {
      starToken = token++;
      starItem = item;
    } else if (current !== undefined && current.test(value)) {
      token++;
      item++;
    } else if (starToken !== -1) {
      token = starToken + 1;
      item = ++starItem;
    } else {
      return false;
    }
  }
  while (tokens[token]?.star === true) token++;
  return token === tokens.length;
}
