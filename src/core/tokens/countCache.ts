// Per-entry token counts, keyed by entry id + encoding + variant, serializable to persist beside the log.
import type { EncodingName } from './encoding';

/** Which rendering of an entry was counted: as sent in full, or as the pruned placeholder. */
export type CountVariant = 'full' | 'pruned';

export interface CountCacheJSON {
  version: 1;
  counts: Record<string, number>;
}

/** Persisted keys are `id|encoding|variant`; in memory each encoding+variant has its own map (no key building per lookup). */
function cacheKey(entryId: string, encoding: EncodingName, variant: CountVariant): string {
  return `${entryId}|${encoding}|${variant}`;
}

/** A table that remembers which ids were counted since the last save (a count is only ever added, never changed). */
class CountTable extends Map<string, number> {
  unsaved: string[] = [];

  override set(id: string, tokens: number): this {
    if (!super.has(id)) this.unsaved.push(id);
    return super.set(id, tokens);
  }

  /** Restored from a saved file: already saved. */
  restore(id: string, tokens: number): void {
    super.set(id, tokens);
  }
}

/**
 * Entries are immutable once appended, so a count never goes stale: each entry is tokenized once
 * per encoding and variant, and a new turn costs only its new entries.
 */
export class CountCache {
  private readonly tables = new Map<EncodingName, Record<CountVariant, CountTable>>();

  get size(): number {
    let size = 0;
    for (const tables of this.tables.values()) size += tables.full.size + tables.pruned.size;
    return size;
  }

  /** The live id→tokens map of one encoding and variant: hot loops look it up once, then use it directly. */
  table(encoding: EncodingName, variant: CountVariant): Map<string, number> {
    return this.countTable(encoding, variant);
  }

  private countTable(encoding: EncodingName, variant: CountVariant): CountTable {
    let tables = this.tables.get(encoding);
    if (!tables) {
      tables = { full: new CountTable(), pruned: new CountTable() };
      this.tables.set(encoding, tables);
    }
    return tables[variant];
  }

  get(entryId: string, encoding: EncodingName, variant: CountVariant): number | undefined {
    return this.table(encoding, variant).get(entryId);
  }

  set(entryId: string, encoding: EncodingName, variant: CountVariant, tokens: number): void {
    this.table(encoding, variant).set(entryId, tokens);
  }

  /** Returns the cached count, or computes, stores and returns it. */
  getOrCount(entryId: string, encoding: EncodingName, variant: CountVariant, count: () => number): number {
    const table = this.table(encoding, variant);
    const cached = table.get(entryId);
    if (cached !== undefined) return cached;
    const tokens = count();
    table.set(entryId, tokens);
    return tokens;
  }

  /** The counts added since the last call (or since the cache was restored), as a record to append; undefined when none. */
  takeUnsaved(): CountCacheJSON | undefined {
    const counts: Record<string, number> = {};
    let found = false;
    for (const [encoding, tables] of this.tables) {
      for (const variant of ['full', 'pruned'] as const) {
        const table = tables[variant];
        for (const id of table.unsaved) {
          const tokens = table.get(id);
          if (tokens === undefined) continue;
          counts[cacheKey(id, encoding, variant)] = tokens;
          found = true;
        }
        table.unsaved = [];
      }
    }
    return found ? { version: 1, counts } : undefined;
  }

  /** Marks every count as saved (after the whole cache was written). */
  markSaved(): void {
    for (const tables of this.tables.values()) {
      tables.full.unsaved = [];
      tables.pruned.unsaved = [];
    }
  }

  toJSON(): CountCacheJSON {
    const counts: Record<string, number> = {};
    for (const [encoding, tables] of this.tables) {
      for (const variant of ['full', 'pruned'] as const) {
        for (const [entryId, tokens] of tables[variant]) counts[cacheKey(entryId, encoding, variant)] = tokens;
      }
    }
    return { version: 1, counts };
  }

  /**
   * Restores a persisted cache. Counts can always be recomputed, so malformed records are dropped
   * (never trusted) rather than failing the session load; a wrong shape yields an empty cache.
   */
  static fromJSON(json: unknown): CountCache {
    const cache = new CountCache();
    cache.restore(json);
    return cache;
  }

  /** Adds a persisted record's counts (already saved); false when the record has the wrong shape. */
  restore(json: unknown): boolean {
    if (typeof json !== 'object' || json === null) return false;
    const record = json as { version?: unknown; counts?: unknown };
    if (record.version !== 1 || typeof record.counts !== 'object' || record.counts === null) return false;
    const counts = record.counts as Record<string, unknown>;
    for (const key in counts) {
      if (!Object.hasOwn(counts, key)) continue;
      const value = counts[key];
      // Exactly three '|'-separated parts, read without splitting (a warm open restores every key).
      const first = key.indexOf('|');
      const second = first < 0 ? -1 : key.indexOf('|', first + 1);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || second < 0 || key.indexOf('|', second + 1) >= 0) continue;
      const encoding = key.slice(first + 1, second);
      const variant = key.slice(second + 1);
      if ((encoding === 'o200k_base' || encoding === 'cl100k_base') && (variant === 'full' || variant === 'pruned')) this.countTable(encoding, variant).restore(key.slice(0, first), value);
    }
    return true;
  }
}
