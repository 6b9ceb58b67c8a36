// What the markers on a path say (dropped, pruned and pinned ids, compactions and their cuts, what a drop undo brought back), kept per session as paths grow.
import type { CompactionEntry, DropEntry, LabelEntry, SessionEntry } from '../session/entries';
import { foldPath, positionBefore, pushUndoable as pushed, setUndoable as put, toggleUndoable as toggle, type FoldState, type PathFold, type Undo } from '../session/pathFold';
import { OwnedMemo } from '../session/ownedMemo';

/** A marker and its position on the path. */
export interface Placed<T extends SessionEntry> {
  entry: T;
  index: number;
}

/** A compaction on the path and where its summary ends: its first kept entry's position (its own when none is found). */
export interface PlacedCompaction extends Placed<CompactionEntry> {
  cut: number;
}

/**
 * The markers' meaning at the end of the path folded so far. Every change goes through `undo`, so the fold can move
 * back to a shared prefix. Ids are unique in a session, so an id's position is the one found before its marker.
 */
class MarkerState implements FoldState {
  /** Message ids dropped now (the last drop or undo of each wins). */
  readonly dropped = new Set<string>();
  readonly pruned = new Set<string>();
  readonly pinned = new Set<string>();
  /** Where each pin's target stood before the pin (absent: not found there). */
  readonly pinAt = new Map<string, number>();
  readonly compactions: PlacedCompaction[] = [];
  readonly drops: Array<Placed<DropEntry>> = [];
  readonly labels: Array<Placed<LabelEntry>> = [];
  /** Summarized while dropped (no summary covers them), by position. */
  readonly leftOut = new Map<string, number>();
  /** Of leftOut, those a drop undo brought back since the latest compaction, by position. */
  readonly back = new Map<string, number>();
  covered = 0;

  reset(): void {
    for (const set of [this.dropped, this.pruned, this.pinned]) set.clear();
    for (const map of [this.pinAt, this.leftOut, this.back]) map.clear();
    this.compactions.length = 0;
    this.drops.length = 0;
    this.labels.length = 0;
    this.covered = 0;
  }

  step(entry: SessionEntry, index: number, path: readonly SessionEntry[], undo: Undo): void {
    switch (entry.type) {
      case 'drop':
        for (const id of entry.entryIds) {
          toggle(this.dropped, id, entry.dropped, undo);
          if (entry.dropped) put(this.back, id, undefined, undo);
          else if (this.leftOut.has(id)) put(this.back, id, this.leftOut.get(id), undo);
        }
        pushed(this.drops, { entry, index }, undo);
        return;
      case 'prune':
        for (const id of entry.toolResultIds) toggle(this.pruned, id, true, undo);
        return;
      case 'pin': {
        toggle(this.pinned, entry.targetId, entry.pinned, undo);
        const at = positionBefore(path, entry.targetId, index);
        put(this.pinAt, entry.targetId, at >= 0 ? at : undefined, undo);
        return;
      }
      case 'label':
        pushed(this.labels, { entry, index }, undo);
        return;
      case 'compaction':
        this.compaction(entry, index, path, undo);
        return;
      default:
        return;
    }
  }

  private compaction(entry: CompactionEntry, index: number, path: readonly SessionEntry[], undo: Undo): void {
    const kept = entry.firstKeptEntryId === null ? -1 : positionBefore(path, entry.firstKeptEntryId, index);
    // What this compaction's summarizer was given: whatever earlier summaries left out and is back now.
    for (const id of [...this.back.keys()]) {
      put(this.leftOut, id, undefined, undo);
      put(this.back, id, undefined, undo);
    }
    // What it summarized for the first time, while dropped, no summary covers.
    const covered = this.covered;
    const end = kept >= covered ? kept : index;
    for (let at = covered; at < end; at++) {
      const id = (path[at] as SessionEntry).id;
      if (this.dropped.has(id)) put(this.leftOut, id, at, undo);
    }
    if (end > covered) {
      this.covered = end;
      undo?.(() => {
        this.covered = covered;
      });
    }
    pushed(this.compactions, { entry, index, cut: kept >= 0 ? kept : index }, undo);
  }
}

/** What the markers on one path say; answers stay true for that path whatever other paths are asked about meanwhile. */
export interface PathMarkers {
  isDropped(id: string): boolean;
  isPruned(id: string): boolean;
  isPinned(id: string): boolean;
  /** Membership views for code that takes a set. */
  readonly dropped: { has(id: string): boolean };
  readonly pruned: { has(id: string): boolean };
  /** The ids pinned now. */
  pinnedIds(): string[];
  /** Where a pinned id stands on the path (its position before its latest pin), or undefined. */
  pinnedAt(id: string): number | undefined;
  /** The latest compaction on the path, with its cut; null when there is none. */
  readonly compaction: PlacedCompaction | null;
  /** Summarized entries no summary covers that a drop undo brought back (see restoredEntryIds), by position. */
  restored(): Map<string, number>;
  /** The latest drop that still has an id dropped (what /drop undo takes back). */
  latestDrop(): DropEntry | undefined;
  /** Labels on the path, newest first, down to (not including) position `after`. */
  labelsAfter(after: number): LabelEntry[];
}

class Markers implements PathMarkers {
  readonly compaction: PlacedCompaction | null;
  readonly dropped = { has: (id: string): boolean => this.state().dropped.has(id) };
  readonly pruned = { has: (id: string): boolean => this.state().pruned.has(id) };

  constructor(
    private readonly path: readonly SessionEntry[],
    private readonly current: MarkerState,
    private readonly fold: PathFold | undefined,
  ) {
    this.compaction = current.compactions.at(-1) ?? null;
  }

  /** The fold's state, moved back to this path when another path was asked about since. */
  private state(): MarkerState {
    if (this.fold && !this.fold.holds(this.path)) this.fold.sync(this.path);
    return this.current;
  }

  isDropped(id: string): boolean {
    return this.state().dropped.has(id);
  }

  isPruned(id: string): boolean {
    return this.state().pruned.has(id);
  }

  isPinned(id: string): boolean {
    return this.state().pinned.has(id);
  }

  pinnedIds(): string[] {
    return [...this.state().pinned];
  }

  pinnedAt(id: string): number | undefined {
    const state = this.state();
    return state.pinned.has(id) ? state.pinAt.get(id) : undefined;
  }

  restored(): Map<string, number> {
    return new Map(this.state().back);
  }

  latestDrop(): DropEntry | undefined {
    const state = this.state();
    for (let at = state.drops.length - 1; at >= 0; at--) {
      const drop = (state.drops[at] as Placed<DropEntry>).entry;
      if (drop.dropped && drop.entryIds.some((id) => state.dropped.has(id))) return drop;
    }
    return undefined;
  }

  labelsAfter(after: number): LabelEntry[] {
    const labels: LabelEntry[] = [];
    const list = this.state().labels;
    for (let at = list.length - 1; at >= 0 && (list[at] as Placed<LabelEntry>).index > after; at--) labels.push((list[at] as Placed<LabelEntry>).entry);
    return labels;
  }
}

const folds = new OwnedMemo<SessionEntry, { fold: PathFold; state: MarkerState }>('marker fold');

/**
 * The markers of `path`. A session's paths share one fold, so a new turn costs its own entries; a path that is not a
 * parentId chain (a hand-made list) is read whole.
 */
export function pathMarkers(path: readonly SessionEntry[]): PathMarkers {
  const { state, fold } = foldPath(folds, path, () => new MarkerState());
  return new Markers(path, state, fold);
}
