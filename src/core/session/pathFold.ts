// An incremental reading of a session's paths: entries folded in path order, each change undoable, so the next turn or a nearby branch costs the entries between the two paths.
import type { SessionEntry } from './entries';

/** Records how to take back one change a fold step made (run in reverse order when the fold moves back). */
export type Undo = (restore: () => void) => void;

/** What a fold does with each entry of a path, in order; every change it makes to its state goes through `undo`. */
export type FoldStep = (entry: SessionEntry, index: number, path: readonly SessionEntry[], undo: Undo) => void;

/**
 * Folds the paths of one session (one root) into a state the step keeps. `sync(path)` keeps what the path shares
 * with the last path folded (found by a binary search: on parentId chains an entry at a position fixes every entry
 * before it), takes back the rest and folds the path's own entries: an appended turn costs its entries, a branch
 * switch the entries between the two leaves. Paths that are not parentId chains from the root are refused (the
 * caller then reads them whole), as a session's ids are unique and its paths are chains.
 */
export class PathFold {
  private readonly entries: SessionEntry[] = [];
  /** marks[k]: the journal's length before entries[k] was folded. */
  private readonly marks: number[] = [];
  private readonly journal: Array<() => void> = [];
  private readonly undo: Undo = (restore) => {
    this.journal.push(restore);
  };

  constructor(
    readonly root: SessionEntry,
    private readonly step: FoldStep,
  ) {}

  /** How many entries of the last path synced are folded. */
  get length(): number {
    return this.entries.length;
  }

  /** True when the fold holds exactly `path` (no sync needed). */
  holds(path: readonly SessionEntry[]): boolean {
    return path.length === this.entries.length && (path.length === 0 || path[path.length - 1] === this.entries[this.entries.length - 1]);
  }

  /** Brings the fold to `path`; false when `path` does not start at this fold's root or is not a parentId chain. */
  sync(path: readonly SessionEntry[]): boolean {
    if (path[0] !== this.root) return false;
    if (this.holds(path)) return true;
    const shared = this.sharedPrefix(path);
    this.truncate(shared);
    for (let index = shared; index < path.length; index++) {
      const entry = path[index] as SessionEntry;
      if (index > 0 && entry.parentId !== (path[index - 1] as SessionEntry).id) return false;
      this.marks.push(this.journal.length);
      this.entries.push(entry);
      this.step(entry, index, path, this.undo);
    }
    return true;
  }

  /** How many leading entries of `path` the fold holds. */
  private sharedPrefix(path: readonly SessionEntry[]): number {
    const limit = Math.min(this.entries.length, path.length);
    if (limit === 0 || this.entries[limit - 1] === path[limit - 1]) return limit;
    let low = 0;
    let high = limit - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.entries[middle] === path[middle]) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private truncate(length: number): void {
    if (this.entries.length <= length) return;
    const mark = this.marks[length] as number;
    for (let at = this.journal.length - 1; at >= mark; at--) (this.journal[at] as () => void)();
    this.journal.length = mark;
    this.marks.length = length;
    this.entries.length = length;
  }
}

/** A state a fold keeps: `step` folds one entry in, every change through `undo`. */
export interface FoldState {
  step: FoldStep;
}

const NO_UNDO: Undo = () => undefined;

/**
 * `path` read by the fold of its session kept in `folds` (one per root; `create` makes its state), or, for a path
 * that is not a parentId chain, read whole into a state of its own. `fold` is undefined for the latter.
 */
export function foldPath<S extends FoldState>(folds: WeakMap<SessionEntry, { fold: PathFold; state: S }>, path: readonly SessionEntry[], create: () => S): { state: S; fold: PathFold | undefined } {
  const root = path[0];
  if (root === undefined) return { state: create(), fold: undefined };
  let known = folds.get(root);
  if (!known) {
    const state = create();
    known = { state, fold: new PathFold(root, (entry, index, on, undo) => state.step(entry, index, on, undo)) };
    folds.set(root, known);
  }
  if (known.fold.sync(path)) return known;
  const whole = create();
  path.forEach((entry, index) => whole.step(entry, index, path, NO_UNDO));
  return { state: whole, fold: undefined };
}

/** The newest position before `before` holding an entry with `id`, or -1 (ids are unique in a session). */
export function positionBefore(path: readonly SessionEntry[], id: string, before: number): number {
  for (let at = before - 1; at >= 0; at--) if ((path[at] as SessionEntry).id === id) return at;
  return -1;
}

/** Appends to `list` so that `undo` removes it again. */
export function pushUndoable<T>(list: T[], item: T, undo: Undo): void {
  list.push(item);
  undo(() => list.pop());
}

/** Sets `key` in `map` (deletes it for undefined) so that `undo` puts the previous value back. */
export function setUndoable<V>(map: Map<string, V>, key: string, value: V | undefined, undo: Undo): void {
  const had = map.has(key);
  const previous = map.get(key);
  if (value === undefined) map.delete(key);
  else map.set(key, value);
  undo(() => {
    if (had) map.set(key, previous as V);
    else map.delete(key);
  });
}

/** Adds `key` to `set` (or takes it out) so that `undo` takes the change back. */
export function toggleUndoable(set: Set<string>, key: string, on: boolean, undo: Undo): void {
  if (set.has(key) === on) return;
  if (on) set.add(key);
  else set.delete(key);
  undo(() => {
    if (on) set.delete(key);
    else set.add(key);
  });
}
