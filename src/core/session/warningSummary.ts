// Keeps what a damaged session reports bounded: text clipped to a fixed length, lists cut to their first few plus a count.

/** How many warnings a load reports one by one; the rest become one line with their count. */
export const WARNINGS_SHOWN = 20;
/** Longest id, reason or warning quoted back (a hostile file can carry megabyte ids). */
export const QUOTE_LIMIT = 300;

/** `text` cut to `limit` characters, saying how much was left out. */
export function clipText(text: string, limit = QUOTE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

/** The first `shown` warnings, then one line counting the rest (nothing is enumerated past the cap). */
export function summariseWarnings(warnings: readonly string[], what: string, shown = WARNINGS_SHOWN): string[] {
  if (warnings.length <= shown) return [...warnings];
  const rest = warnings.length - shown;
  return [...warnings.slice(0, shown), `${what}: and ${rest} more damaged line${rest === 1 ? '' : 's'} set aside the same way (${warnings.length} in all)`];
}

/** The first `shown` items of a list and how many there are in all. */
export function firstOf<T>(items: readonly T[], shown = WARNINGS_SHOWN): { shown: T[]; total: number } {
  return { shown: items.slice(0, shown), total: items.length };
}
