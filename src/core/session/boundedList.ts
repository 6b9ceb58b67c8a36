// A list cut to what a view or a request can show, by count and by characters, with what was left out counted.

/**
 * The items kept, in their order, and how many were left out (as a match array carries its index: it reads as
 * the list it is, and a consumer that shows it can say what is missing). Plain data only in memory: a view model
 * sent elsewhere names the count in a field of its own.
 */
export type BoundedList<T> = T[] & { readonly omitted: number };

/** How many items a list left out: its count when it is a bounded list, else 0. */
export function omittedFrom(list: readonly unknown[]): number {
  return 'omitted' in list && typeof list.omitted === 'number' ? list.omitted : 0;
}

export interface ListBounds<T> {
  /** Most items kept. */
  maxItems: number;
  /** Most characters the kept items may take together (by `size`); unbounded when absent. */
  maxChars?: number;
  /** An item's size in characters; a string's length by default. */
  size?: (item: T) => number;
  /** Which end is kept: the newest items are at the end of most lists. */
  keep: 'first' | 'last';
}

function defaultSize(item: unknown): number {
  return typeof item === 'string' ? item.length : 0;
}

/**
 * The items that fit both bounds, taken from the kept end until the next one would not fit (so the kept items are
 * contiguous: nothing from the middle is silently missing), and the count of the others. Walks only the kept items.
 */
export function boundList<T>(items: readonly T[], bounds: ListBounds<T>): BoundedList<T> {
  const size = bounds.size ?? defaultSize;
  const maxChars = bounds.maxChars ?? Number.POSITIVE_INFINITY;
  const kept: T[] = [];
  let chars = 0;
  for (let step = 0; step < items.length && kept.length < bounds.maxItems; step++) {
    const item = items[bounds.keep === 'first' ? step : items.length - 1 - step] as T;
    const itemChars = size(item);
    if (chars + itemChars > maxChars && kept.length > 0) break;
    kept.push(item);
    chars += itemChars;
  }
  if (bounds.keep === 'last') kept.reverse();
  return Object.assign(kept, { omitted: items.length - kept.length });
}

/** "… and 1,234 more dropped parts": the line that says what a bounded list left out (empty when nothing). */
export function omittedLine(omitted: number, one: string, many: string): string {
  if (omitted <= 0) return '';
  return `… and ${omitted.toLocaleString('en-US')} more ${omitted === 1 ? one : many}`;
}
