// Per-entry token counts, keyed by entry id + encoding + variant, serializable to persist beside the log.
import type { EncodingName } from './encoding';

/** Which rendering of an entry was counted: as sent in full, or as the pruned placeholder. */
export type CountVariant = 'full' | 'pruned';

export interface CountCacheJSON {
  version: 1;
  counts: Record<string, number>;
}

function cacheKey(entryId: string, encoding: EncodingName, variant: CountVariant): string {
  return `${entryId}|${encoding}|${variant}`;
}

/**
 * Entries are immutable once appended, so a count never goes stale: each entry is tokenized once
 * per encoding and variant, and a new turn costs only its new entries.
 */
export class CountCache {
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.counts.size;
  }

  get(entryId: string, encoding: EncodingName, variant: CountVariant): number | undefined {
    return this.counts.get(cacheKey(entryId, encoding, variant));
  }

  set(entryId: string, encoding: EncodingName, variant: CountVariant, tokens: number): void {
    this.counts.set(cacheKey(entryId, encoding, variant), tokens);
  }

  /** Returns the cached count, or computes, stores and returns it. */
  getOrCount(entryId: string, encoding: EncodingName, variant: CountVariant, count: () => number): number {
    const key = cacheKey(entryId, encoding, variant);
    const cached = this.counts.get(key);
    if (cached !== undefined) return cached;
    const tokens = count();
    this.counts.set(key, tokens);
    return tokens;
  }

  toJSON(): CountCacheJSON {
    return { version: 1, counts: Object.fromEntries(this.counts) };
  }

  /**
   * Restores a persisted cache. Counts can always be recomputed, so malformed records are dropped
   * (never trusted) rather than failing the session load; a wrong shape yields an empty cache.
   */
  static fromJSON(json: unknown): CountCache {
    const cache = new CountCache();
    if (typeof json !== 'object' || json === null) return cache;
    const record = json as { version?: unknown; counts?: unknown };
    if (record.version !== 1 || typeof record.counts !== 'object' || record.counts === null) return cache;
    for (const [key, value] of Object.entries(record.counts)) {
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && key.split('|').length === 3) {
        cache.counts.set(key, value);
      }
    }
    return cache;
  }
}
