// The prune plan kept up to date as a path grows: a new turn costs its own entries and the plan's size, never a walk of the whole session.
import { pathMarkers, type PathMarkers } from '../context/pathMarkers';
import type { Settings } from '../settings/settings';
import type { SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { PathCountMap, type EntryRecord, type PathStore } from '../tokens/pathCounts';
import { planPrune, type EntryCosts, type PrunePlan } from './prunePlan';
import { sharedPrefixLength } from '../session/sharedPrefix';

const NOTHING: PrunePlan = { entryIds: [], tokensFreed: 0 };

/** Entries that change what planPrune sees of earlier entries: the index is rebuilt when one is appended. */
function isMarker(entry: SessionEntry): boolean {
  return entry.type === 'prune' || entry.type === 'pin' || entry.type === 'drop' || entry.type === 'compaction';
}

/** The number of items of a sorted array below `value`. */
function countBelow(sorted: readonly number[], value: number, from = 0, to = sorted.length): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function popAbove(positions: number[], last: number): void {
  while (positions.length > 0 && (positions.at(-1) as number) > last) positions.pop();
}

/**
 * What planPrune reads of one path prefix, classified once per entry: the person's requests, the results
 * pruned already (where its walk stops) and the results it may prune, with prefix sums of their costs.
 * Valid for the prefix `entries`; a path sharing part of it keeps that part (entries on a verified chain:
 * the entry at a position fixes every entry before it).
 */
class PruneIndex {
  entries: SessionEntry[] = [];
  /** Position of the newest marker in `entries`, -1 when none. */
  markerAt = -1;
  /** The markers of the synced path (what is pruned, pinned, dropped): kept per session, asked by id. */
  markers: PathMarkers | undefined;
  compactionAt = -1;
  spanStart = 0;
  /** Positions of the person's requests in the context span. */
  users: number[] = [];
  /** Positions of results already pruned in the span (planPrune's walk ends at the newest one it examines). */
  stops: number[] = [];
  /** Positions of the results planPrune may choose (not pruned, not pinned, not of a protected tool), and their records. */
  eligible: number[] = [];
  records: EntryRecord[] = [];
  /** cumFull[k]: the costs (in endpoint units at `ratio`) of eligible[0..k) in full. */
  cumFull: number[] = [0];
  ratio = Number.NaN;
  /** savedSums[k]: what pruning eligible[savedFrom .. savedFrom + k) would save (placeholders counted on demand). */
  savedFrom = 0;
  savedSums: number[] = [0];
  /** The ids of the candidates eligible[idsFrom .. idsUpTo) that save something, oldest first. */
  idsFrom = -1;
  idsUpTo = -1;
  ids: string[] = [];

  constructor(
    private readonly store: PathStore,
    private readonly protectedTools: ReadonlySet<string>,
  ) {}

  /** Brings the index to `path`: keeps the shared prefix, scans what follows, rebuilds when a marker is involved. */
  sync(path: readonly SessionEntry[]): void {
    const shared = sharedPrefixLength(this.entries, path);
    if (this.markerAt >= shared) {
      this.rebuild(path, shared);
      return;
    }
    this.truncate(shared);
    // Entries after the newest marker change no marker's meaning: the path's markers answer as the prefix's did.
    this.markers = pathMarkers(path);
    for (let position = shared; position < path.length; position++) {
      const entry = path[position] as SessionEntry;
      if (isMarker(entry)) {
        this.rebuild(path, position);
        return;
      }
      this.entries.push(entry);
      this.classify(entry, position);
    }
  }

  private truncate(length: number): void {
    if (this.entries.length === length) return;
    this.entries.length = length;
    popAbove(this.users, length - 1);
    popAbove(this.stops, length - 1);
    popAbove(this.eligible, length - 1);
    this.records.length = this.eligible.length;
    if (this.cumFull.length > this.eligible.length + 1) this.cumFull.length = this.eligible.length + 1;
    if (this.savedFrom > this.eligible.length) this.resetSaved(0);
    else if (this.savedSums.length > this.eligible.length - this.savedFrom + 1) this.savedSums.length = this.eligible.length - this.savedFrom + 1;
    if (this.idsUpTo > this.eligible.length) this.idsFrom = -1;
  }

  /**
   * Classifies the context span again from the path's markers (kept per session); `shared` leading entries of the
   * last path are kept as they are, so a marker costs the context span, not a copy of the whole path.
   */
  private rebuild(path: readonly SessionEntry[], shared: number): void {
    this.entries.length = Math.min(shared, this.entries.length);
    for (let position = this.entries.length; position < path.length; position++) this.entries.push(path[position] as SessionEntry);
    this.markerAt = -1;
    for (let position = path.length - 1; position >= 0 && this.markerAt < 0; position--) if (isMarker(path[position] as SessionEntry)) this.markerAt = position;
    const markers = pathMarkers(path);
    this.markers = markers;
    const compaction = markers.compaction;
    this.compactionAt = compaction ? compaction.index : -1;
    this.spanStart = compaction ? compaction.cut : 0;
    this.users = [];
    this.stops = [];
    this.eligible = [];
    this.records = [];
    this.cumFull = [0];
    this.ratio = Number.NaN;
    this.resetSaved(0);
    this.idsFrom = -1;
    for (let position = this.spanStart; position < path.length; position++) this.classify(path[position] as SessionEntry, position);
  }

  /** Files one entry of the context span the way planPrune's walk treats it. */
  private classify(entry: SessionEntry, position: number): void {
    const markers = this.markers as PathMarkers;
    if (position < this.spanStart || position === this.compactionAt || !isMessageEntry(entry) || markers.isDropped(entry.id)) return;
    if (entry.type === 'user') {
      if (!entry.synthetic) this.users.push(position);
      return;
    }
    if (entry.type !== 'toolResult') return;
    if (markers.isPruned(entry.id)) {
      this.stops.push(position);
      return;
    }
    if (this.protectedTools.has(entry.toolName) || markers.isPinned(entry.id)) return;
    const record = this.store.record(entry.id);
    if (!record) throw new Error(`prune index: ${entry.id} has no count record`);
    this.eligible.push(position);
    this.records.push(record);
  }

  private scaled(tokens: number | undefined): number {
    if (tokens === undefined) return 0;
    return this.ratio === 1 ? tokens : Math.round(tokens * this.ratio);
  }

  private ensureFull(ratio: number): void {
    if (ratio !== this.ratio) {
      this.ratio = ratio;
      this.cumFull = [0];
      this.resetSaved(0);
      this.idsFrom = -1;
    }
    for (let k = this.cumFull.length - 1; k < this.eligible.length; k++) {
      this.cumFull.push((this.cumFull[k] as number) + this.scaled(this.store.fullCount(this.records[k] as EntryRecord)));
    }
  }

  private resetSaved(from: number): void {
    this.savedFrom = from;
    this.savedSums = [0];
  }

  private saved(k: number): number {
    const record = this.records[k] as EntryRecord;
    return this.scaled(this.store.fullCount(record)) - this.scaled(this.store.prunedCount(record));
  }

  /** Savings of eligible[from .. to), counting placeholders only as far as asked. */
  private savedBetween(from: number, to: number): number {
    if (from < this.savedFrom) this.resetSaved(from);
    for (let k = this.savedFrom + this.savedSums.length - 1; k < to; k++) {
      this.savedSums.push((this.savedSums.at(-1) as number) + Math.max(0, this.saved(k)));
    }
    return (this.savedSums[to - this.savedFrom] as number) - (this.savedSums[from - this.savedFrom] as number);
  }

  private candidateIds(from: number, to: number): string[] {
    if (this.idsFrom !== from || this.idsUpTo > to) {
      this.idsFrom = from;
      this.idsUpTo = from;
      this.ids = [];
    }
    for (let k = this.idsUpTo; k < to; k++) if (this.saved(k) > 0) this.ids.push((this.records[k] as EntryRecord).entry.id);
    this.idsUpTo = to;
    return this.ids.slice();
  }

  /** planPrune's answer for the synced path of `length` entries, from the sums. */
  plan(length: number, ratio: number, settings: Settings['pruning']): PrunePlan {
    const turns = Math.ceil(settings.protectTurns);
    let examinedBelow = length;
    if (turns > 0) {
      if (this.users.length < turns) return NOTHING;
      examinedBelow = this.users[this.users.length - turns] as number;
    }
    const stopAt = countBelow(this.stops, examinedBelow);
    const stop = stopAt > 0 ? (this.stops[stopAt - 1] as number) : -1;
    const first = countBelow(this.eligible, stop + 1);
    const end = countBelow(this.eligible, examinedBelow, first);
    if (end <= first) return NOTHING;
    this.ensureFull(ratio);
    const target = (this.cumFull[end] as number) - settings.protectTokens;
    // The walk's boundary: the newest eligible result at which the output seen from the protected turns back exceeds protectTokens.
    if ((this.cumFull[first] as number) >= target) return NOTHING;
    let low = first;
    let high = end - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.cumFull[middle] as number) < target) low = middle;
      else high = middle - 1;
    }
    const boundary = low;
    const tokensFreed = this.savedBetween(first, boundary + 1);
    if (tokensFreed <= 0 || tokensFreed < settings.minimumTokens) return NOTHING;
    return { entryIds: this.candidateIds(first, boundary + 1), tokensFreed };
  }
}

function indexFor(store: PathStore, protectedTools: readonly string[]): PruneIndex {
  const key = `prune\u0000${[...protectedTools].sort().join('\u0000')}`;
  let index = store.memos.get(key) as PruneIndex | undefined;
  if (!index) {
    index = new PruneIndex(store, new Set(protectedTools));
    store.memos.set(key, index);
  }
  return index;
}

/**
 * planPrune's plan, equal to it entry for entry, for a path counted by countPath: the index keeps what its walk
 * would read, so a new turn costs its own entries (and the listing of a plan that prunes something), not the
 * session's length. Paths that are not a verified chain, and odd ratios, take planPrune itself.
 */
export function planPruneIncremental(path: readonly SessionEntry[], counts: { full: unknown }, costs: EntryCosts, ratio: number, settings: Settings['pruning']): PrunePlan {
  if (!settings.enabled) return NOTHING;
  const view = counts.full;
  if (!(view instanceof PathCountMap) || !view.isViewOf(path) || !view.store.chain || !(ratio > 0) || !Number.isFinite(ratio)) return planPrune(path, costs, settings);
  const index = indexFor(view.store, settings.protectedTools);
  index.sync(path);
  return index.plan(path.length, ratio, settings);
}
