// An incremental reading of a session's paths: entries folded in path order, each change undoable, so the next turn or a nearby branch costs the entries between the two paths.
import type { SessionEntry } from './entries';
import { sharedPrefixLength } from './sharedPrefix';
import type { OwnedMemo } from './ownedMemo';

/**
 * Records how to take back one change a fold step made (run in reverse order when the fold moves back); undefined
 * where nothing will be taken back (a path's start folded without a journal): steps call it as `undo?.(…)`, so no
 * closure is made there.
 */
export type Undo = ((restore: () => void) => void) | undefined;

/** What a fold does with each entry of a path, in order; every change it makes to its state goes through `undo`. */
export type FoldStep = (entry: SessionEntry, index: number, path: readonly SessionEntry[], undo: Undo) => void;

/**
 * Entries at the end of a path folded from nothing that are journaled all the same: a branch switch within them
 * costs its entries; one further back folds again from the start (a branch switch already copies the whole path).
 */
export const JOURNALED_TAIL = 128;

/**
 * Folds the paths of one session (one root) into a state the step keeps. `sync(path)` keeps what the path shares
 * with the last path folded (found by a binary search: on parentId chains an entry at a position fixes every entry
 * before it), takes back the rest and folds the path's own entries: an appended turn costs its entries, a branch
 * switch the entries between the two leaves. Paths that are not parentId chains from the root are refused (the
 * caller then reads them whole), as a session's ids are unique and its paths are chains.
 *
 * With `reset`, a path folded from nothing (a session just opened) is folded without a journal up to its last
 * JOURNALED_TAIL entries: an undo closure per change made the marker fold a quarter of a warm open's measure and most
 * of what it allocates (about 1.7 MB held per 10k entries). Moving back before that point folds again from the start.
 */
export class PathFold {
  private entries: SessionEntry[] = [];
  /** marks[k]: the journal's length before entries[quiet + k] was folded (none below `quiet`). */
  private readonly marks: number[] = [];
  private readonly journal: Array<() => void> = [];
  private readonly undo: Undo = (restore) => {
    this.journal.push(restore);
  };
  /** entries[0, quiet) were folded without a journal: taking any of them back folds again from the start. */
  private quiet = 0;

  constructor(
    readonly root: SessionEntry,
    private readonly step: FoldStep,
    /** Puts the state back to that of an empty path (when given, a long path's start is folded without a journal). */
    private readonly reset?: () => void,
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
    const shared = sharedPrefixLength(this.entries, path);
    this.truncate(shared);
    // A path read from nothing is copied at its size at once (pushed one by one, the copy grows through three times its size).
    const fresh = this.entries.length === 0;
    if (fresh) this.entries = path.slice();
    const quiet = this.reset && fresh ? path.length - JOURNALED_TAIL : 0;
    for (let index = shared; index < path.length; index++) {
      const entry = path[index] as SessionEntry;
      if (index > 0 && entry.parentId !== (path[index - 1] as SessionEntry).id) {
        this.entries.length = index;
        return false;
      }
      if (!fresh) this.entries.push(entry);
      if (index < quiet) {
        this.step(entry, index, path, undefined);
        this.quiet = index + 1;
      } else {
        this.marks.push(this.journal.length);
        this.step(entry, index, path, this.undo);
      }
    }
    return true;
  }

  private truncate(length: number): void {
    if (this.entries.length <= length) return;
    if (length < this.quiet && this.reset) {
      this.refold(length, this.reset);
      return;
    }
    const mark = this.marks[length - this.quiet] as number;
    for (let at = this.journal.length - 1; at >= mark; at--) (this.journal[at] as () => void)();
    this.journal.length = mark;
    this.marks.length = length - this.quiet;
    this.entries.length = length;
  }

  /** The state of the first `length` entries, folded again from nothing without a journal. */
  private refold(length: number, reset: () => void): void {
    this.journal.length = 0;
    this.marks.length = 0;
    this.entries.length = length;
    reset();
    for (let index = 0; index < length; index++) this.step(this.entries[index] as SessionEntry, index, this.entries, undefined);
    this.quiet = length;
  }
}

/** A state a fold keeps: `step` folds one entry in, every change through `undo`. */
export interface FoldState {
  step: FoldStep;
  /** Back to the state of an empty path; a state that has it lets a fold read a long path's start without a journal. */
  reset?(): void;
}

/**
 * `path` read by the fold of its session kept in `folds` (one per root; `create` makes its state), or, for a path
 * that is not a parentId chain, read whole into a state of its own. `fold` is undefined for the latter.
 */
export function foldPath<S extends FoldState>(folds: OwnedMemo<SessionEntry, { fold: PathFold; state: S }>, path: readonly SessionEntry[], create: () => S): { state: S; fold: PathFold | undefined } {
  const root = path[0];
  if (root === undefined) return { state: create(), fold: undefined };
  let known = folds.get(root);
  if (!known) {
    const state = create();
    const reset = state.reset ? (): void => state.reset?.() : undefined;
    known = { state, fold: new PathFold(root, (entry, index, on, undo) => state.step(entry, index, on, undo), reset) };
    folds.set(root, known);
  }
  if (known.fold.sync(path)) return known;
  const whole = create();
  path.forEach((entry, index) => whole.step(entry, index, path, undefined));
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
  undo?.(() => list.pop());
}

/** Sets `key` in `map` (deletes it for undefined) so that `undo` puts the previous value back; nothing when nothing changes. */
export function setUndoable<V>(map: Map<string, V>, key: string, value: V | undefined, undo: Undo): void {
  const had = map.has(key);
  const previous = map.get(key);
  if (had ? previous === value : value === undefined) return;
  if (value === undefined) map.delete(key);
  else map.set(key, value);
  undo?.(() => {
    if (had) map.set(key, previous as V);
    else map.delete(key);
  });
}

/** Adds `key` to `set` (or takes it out) so that `undo` takes the change back. */
export function toggleUndoable(set: Set<string>, key: string, on: boolean, undo: Undo): void {
  if (set.has(key) === on) return;
  if (on) set.add(key);
  else set.delete(key);
  undo?.(() => {
    if (on) set.delete(key);
    else set.add(key);
  });
}
