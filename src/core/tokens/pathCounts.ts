// Per-entry counts of a path as O(1) views over a store shared by the paths of one session, so a new turn costs only its new entries.
import type { AssistantEntry, CompactionEntry, MessageEntry, SessionEntry, ToolResultEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { pathDepths, type DepthLookup } from '../session/pathDepths';

/** One entry as seen from its store's root: entries are immutable, so its depth and count never change. */
export interface EntryRecord {
  entry: SessionEntry;
  /** Position on every root→leaf path through this entry (its depth below the store's root). */
  index: number;
  /** Tokens as sent in full (message entries only), counted on first use: entries a compaction summarized are never sent, so never tokenized. */
  full?: number;
  /** Tokens of the pruned placeholder, counted on first use (tool results only). */
  pruned?: number;
  /** Message entries and tool results on the path up to and including this entry (for `size`). */
  messages: number;
  toolResults: number;
}

export interface EntryCounters {
  full: (entry: MessageEntry) => number;
  pruned: (entry: ToolResultEntry) => number;
  /** The message a compaction's summary is sent as. */
  summary: (entry: CompactionEntry) => number;
}

/**
 * Records of every entry counted under one root, plus memos other modules keep per path end (the
 * context counts). Paths are verified as parentId chains before they extend a store, so a record's
 * index is the same on every path that holds the entry. The first path a store takes (a session just
 * opened) is kept as its spine when its tree can say where an id sits on it: the spine's records are
 * made when first asked for, so measuring a context makes records for what the context holds only.
 */
export class PathStore {
  private readonly records = new Map<string, EntryRecord>();
  /** Records added after the spine, by tool-call id, to spot a reused call id in O(1). */
  private readonly owners = new Map<string, EntryRecord[]>();
  /** Free for path-keyed memos of other modules (e.g. context counts by path end id). */
  readonly memos = new Map<string, unknown>();
  /** The first path taken, copied (paths are shared arrays that grow), and where its tree puts an id on it. */
  private spine: readonly SessionEntry[] = [];
  private spineDepth: DepthLookup | undefined;
  /** Message entries and tool results on spine[0 .. index], for the records made later. */
  private spineMessages = new Int32Array(0);
  private spineResults = new Int32Array(0);
  /** Spine positions of the assistant entries by tool-call id, found on the first question about a call id. */
  private spineCalls: Map<string, number[]> | undefined;

  constructor(
    readonly root: SessionEntry | undefined,
    private readonly counters: EntryCounters,
    /** True when every path recorded here was verified as a parentId chain (an entry's index fixes its ancestors). */
    readonly chain = true,
  ) {}

  /** True before anything was recorded. */
  get empty(): boolean {
    return this.records.size === 0 && this.spine.length === 0;
  }

  /**
   * Takes a verified chain as the spine of an empty store: one pass for the running counts of its messages and tool
   * results, no record made. Without a tree to place ids on it, every record is made now instead.
   */
  takeSpine(path: readonly SessionEntry[], depthOf: DepthLookup | undefined): void {
    if (!depthOf) {
      let previous: EntryRecord | undefined;
      for (let index = 0; index < path.length; index++) previous = this.add(path[index] as SessionEntry, index, previous);
      return;
    }
    this.spine = path.slice();
    this.spineDepth = depthOf;
    this.spineMessages = new Int32Array(path.length);
    this.spineResults = new Int32Array(path.length);
    let messages = 0;
    let results = 0;
    for (let index = 0; index < path.length; index++) {
      const entry = path[index] as SessionEntry;
      if (isMessageEntry(entry)) messages++;
      if (entry.type === 'toolResult') results++;
      this.spineMessages[index] = messages;
      this.spineResults[index] = results;
    }
  }

  /** The record of `id` (made now when it is a spine entry not asked for before). */
  record(id: string): EntryRecord | undefined {
    const made = this.records.get(id);
    if (made !== undefined || this.spine.length === 0) return made;
    const index = this.spineDepth?.(id);
    if (index === undefined || index >= this.spine.length || this.spine[index]?.id !== id) return undefined;
    return this.makeSpineRecord(index);
  }

  /** Whether `entry` is recorded at `index` (a spine entry counts, made or not); 'elsewhere' when its id is recorded at another. */
  holds(entry: SessionEntry, index: number): boolean | 'elsewhere' {
    if (index < this.spine.length && this.spine[index] === entry) return true;
    const record = this.record(entry.id);
    if (!record) return false;
    return record.entry === entry && record.index === index ? true : 'elsewhere';
  }

  /** The assistant records that made a call with this id. */
  ownersOf(callId: string): EntryRecord[] {
    const added = this.owners.get(callId) ?? [];
    if (this.spine.length === 0) return added;
    if (!this.spineCalls) {
      const calls = new Map<string, number[]>();
      this.spine.forEach((entry, index) => {
        if (entry.type !== 'assistant') return;
        for (const call of entry.toolCalls) {
          const at = calls.get(call.id);
          if (at) at.push(index);
          else calls.set(call.id, [index]);
        }
      });
      this.spineCalls = calls;
    }
    const onSpine = this.spineCalls.get(callId);
    if (!onSpine) return added;
    return [...onSpine.map((index) => this.records.get(this.spine[index]?.id ?? '') ?? this.makeSpineRecord(index)), ...added];
  }

  add(entry: SessionEntry, index: number, previous: EntryRecord | undefined): EntryRecord {
    const message = isMessageEntry(entry);
    const record: EntryRecord = {
      entry,
      index,
      messages: (previous?.messages ?? 0) + (message ? 1 : 0),
      toolResults: (previous?.toolResults ?? 0) + (entry.type === 'toolResult' ? 1 : 0),
    };
    this.records.set(entry.id, record);
    if (entry.type === 'assistant') this.addCallOwner(entry, record);
    return record;
  }

  private makeSpineRecord(index: number): EntryRecord {
    const entry = this.spine[index] as SessionEntry;
    const record: EntryRecord = { entry, index, messages: this.spineMessages[index] as number, toolResults: this.spineResults[index] as number };
    this.records.set(entry.id, record);
    return record;
  }

  fullCount(record: EntryRecord): number | undefined {
    if (record.full === undefined && isMessageEntry(record.entry)) record.full = this.counters.full(record.entry);
    return record.full;
  }

  summaryCount(entry: CompactionEntry): number {
    return this.counters.summary(entry);
  }

  prunedCount(record: EntryRecord): number | undefined {
    if (record.entry.type !== 'toolResult') return undefined;
    record.pruned ??= this.counters.pruned(record.entry);
    return record.pruned;
  }

  private addCallOwner(entry: AssistantEntry, record: EntryRecord): void {
    for (const call of entry.toolCalls) {
      const owners = this.owners.get(call.id);
      if (owners) owners.push(record);
      else this.owners.set(call.id, [record]);
    }
  }
}

/** A path's counts (full or pruned variant) as a read-only map, answered from the store without copying. */
export class PathCountMap implements ReadonlyMap<string, number> {
  constructor(
    readonly path: readonly SessionEntry[],
    readonly store: PathStore,
    private readonly variant: 'full' | 'pruned',
    private readonly length: number = path.length,
  ) {}

  /** True when this is the view of `path` as it is now (paths are shared and may have grown since the view was made). */
  isViewOf(path: readonly SessionEntry[]): boolean {
    return path === this.path && path.length === this.length;
  }

  /** The record of `id` when that entry is on this path. */
  record(id: string): EntryRecord | undefined {
    const record = this.store.record(id);
    if (!record || record.index >= this.length || this.path[record.index] !== record.entry) return undefined;
    return record;
  }

  get(id: string): number | undefined {
    const record = this.record(id);
    if (!record) return undefined;
    return this.variant === 'full' ? this.store.fullCount(record) : this.store.prunedCount(record);
  }

  /** Tokens of the summary message of a compaction on this path (counted once per compaction and cache). */
  summaryTokens(id: string): number | undefined {
    const entry = this.record(id)?.entry;
    return entry?.type === 'compaction' ? this.store.summaryCount(entry) : undefined;
  }

  has(id: string): boolean {
    const record = this.record(id);
    if (!record) return false;
    return this.variant === 'full' ? isMessageEntry(record.entry) : record.entry.type === 'toolResult';
  }

  get size(): number {
    const last = this.length > 0 ? this.path[this.length - 1] : undefined;
    const record = last ? this.record(last.id) : undefined;
    if (!record) return 0;
    return this.variant === 'full' ? record.messages : record.toolResults;
  }

  /** Iterating is O(path) (and counts every placeholder of the pruned variant): only reports do it. */
  private snapshot(): Map<string, number> {
    const map = new Map<string, number>();
    for (let index = 0; index < this.length; index++) {
      const entry = this.path[index];
      const tokens = entry ? this.get(entry.id) : undefined;
      if (entry && tokens !== undefined) map.set(entry.id, tokens);
    }
    return map;
  }

  forEach(callback: (value: number, key: string, map: ReadonlyMap<string, number>) => void): void {
    for (const [key, value] of this.snapshot()) callback(value, key, this);
  }

  entries(): MapIterator<[string, number]> {
    return this.snapshot().entries();
  }

  keys(): MapIterator<string> {
    return this.snapshot().keys();
  }

  values(): MapIterator<number> {
    return this.snapshot().values();
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.snapshot().entries();
  }
}

/**
 * Extends the store with the entries of `path` it does not hold yet. Walks back from the leaf to the
 * newest entry already recorded at the same position, checking the parentId chain on the way, so an
 * appended turn costs O(new entries). Returns false when the path is not a chain the store can hold
 * (the caller then counts it in a store of its own).
 */
export function extendStore(store: PathStore, path: readonly SessionEntry[]): boolean {
  if (path.length > 0 && path[0] !== store.root) return false;
  // An empty store (a session just opened) takes the path as its spine after one pass that checks the chain.
  if (store.empty) {
    for (let index = 1; index < path.length; index++) if (path[index]?.parentId !== path[index - 1]?.id) return false;
    store.takeSpine(path, pathDepths(path));
    return true;
  }
  let anchor = path.length - 1;
  while (anchor >= 0) {
    const entry = path[anchor];
    if (!entry) return false;
    const held = store.holds(entry, anchor);
    if (held === 'elsewhere') return false;
    if (held) break;
    if (anchor > 0 && entry.parentId !== path[anchor - 1]?.id) return false;
    anchor--;
  }
  let previous = anchor >= 0 ? store.record(path[anchor]?.id ?? '') : undefined;
  for (let index = anchor + 1; index < path.length; index++) {
    const entry = path[index];
    if (entry) previous = store.add(entry, index, previous);
  }
  return true;
}

/** A store for an arbitrary entry list (not a chain): every entry recorded at its own position. */
export function standaloneStore(path: readonly SessionEntry[], counters: EntryCounters): PathStore {
  const store = new PathStore(path[0], counters, false);
  let previous: EntryRecord | undefined;
  path.forEach((entry, index) => {
    previous = store.add(entry, index, previous);
  });
  return store;
}
