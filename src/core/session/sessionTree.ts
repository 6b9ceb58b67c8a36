// In-memory index of a session's entries: the tree through parentId, branch tips, the current leaf, and the paths handed out.
import type { CompactionEntry, SessionEntry } from './entries';
import { notePathDepths } from './pathDepths';

/** An entry whose parentId named no earlier node, and the node it hangs from instead. */
export interface Reattachment {
  entry: SessionEntry;
  /** The current leaf when it was added (the previous entry on its branch), or null when there was none. */
  parent: SessionEntry | null;
}

/** No position (no parent, no child). */
const NONE = -1;
const EMPTY: readonly SessionEntry[] = Object.freeze([]);

/** `array` with room for at least `size` items (doubling, so appends cost O(1) on average). */
function room(array: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  if (size <= array.length) return array;
  const grown = new Int32Array(Math.max(size, array.length * 2));
  grown.set(array);
  return grown;
}

export class SessionTree {
  /** All entries in file order (tree nodes and `leaf` moves). */
  readonly entries: SessionEntry[] = [];
  /** Position in `entries` of the latest entry with each id. */
  private positionOf = new Map<string, number>();
  /**
   * Per position in `entries`, as numbers (no object per entry): the node it hangs from (always one added before
   * it, so following these links ends at a root after at most one step per node, whatever ids the entries carry:
   * self-parents, loops, reused ids), its depth below its root (where it sits on any path through it), and its
   * children as a list in file order (first child, next sibling, last child). Leaf moves have no links.
   */
  private parents = new Int32Array(1024);
  private depths = new Int32Array(1024);
  private firstChild = new Int32Array(1024);
  private lastChild = new Int32Array(1024);
  private nextSibling = new Int32Array(1024);
  private firstRoot = NONE;
  private lastRoot = NONE;
  /** Nodes without children (branch tips). */
  private tips = 0;
  private readonly reattached: Reattachment[] = [];
  private currentLeaf: string | null = null;
  /**
   * The path pathTo returned last. A node's root→node path never changes, so when a walk meets a node at its own
   * depth in this path, the prefix up to it is that node's path; when that node is its last entry, the path is
   * extended in place instead of copied.
   */
  private lastPath: SessionEntry[] = [];
  /** pathTo's buffer of node positions. */
  private tail = new Int32Array(0);

  /** Where the node with `id` sits on any path through it (its depth below its root); undefined for no node. */
  readonly depthOf = (id: string): number | undefined => {
    const at = this.positionOf.get(id);
    return at === undefined || this.entries[at]?.type === 'leaf' ? undefined : this.depths[at];
  };

  constructor(entries: readonly SessionEntry[] = []) {
    for (const entry of entries) this.add(entry);
  }

  /**
   * The tree of a log's entries whose ids are unique, adopting `positions` (each id's position in `entries`, as the
   * parser found it) instead of hashing every id again. Links are made in file order as add makes them: a parent or
   * a leaf move's target counts only when it comes earlier in the file.
   */
  static ofUniqueIds(entries: readonly SessionEntry[], positions: Map<string, number>): SessionTree {
    const tree = new SessionTree();
    tree.positionOf = positions;
    tree.reserve(entries.length);
    for (const entry of entries) tree.link(entry);
    return tree;
  }

  get leafId(): string | null {
    return this.currentLeaf;
  }

  /**
   * Indexes one entry in file order. A `leaf` entry moves the current leaf instead of adding a node. A node
   * whose parentId names no earlier node (its parent's line was damaged and set aside, or it names itself or
   * a later entry) hangs from the current leaf: in an append-only log that is the entry written before it on
   * its branch, so a damaged line never cuts the history below it.
   */
  add(entry: SessionEntry): void {
    const at = this.entries.length;
    // Indexed after it is linked: a reused id naming itself as the parent hangs from the earlier entry with that id.
    this.link(entry);
    this.positionOf.set(entry.id, at);
  }

  /** Links the entry at the next position: only earlier nodes count as its parent or as a leaf move's target. */
  private link(entry: SessionEntry): void {
    const at = this.entries.length;
    if (at >= this.parents.length) this.reserve(at + 1);
    if (entry.type === 'leaf') {
      this.entries.push(entry);
      this.parents[at] = NONE;
      if (this.nodeBefore(entry.targetId, at) !== undefined) this.currentLeaf = entry.targetId;
      return;
    }
    // Only a node before this entry, so an entry can never be its own parent (nor hang from a later one). Most entries
    // hang from the entry just before them, the latest with its id, which needs no lookup in the id map.
    const parentId = entry.parentId;
    const previous = this.entries[at - 1];
    const named = parentId === null ? NONE : previous !== undefined && previous.id === parentId && previous.type !== 'leaf' ? at - 1 : this.nodeBefore(parentId, at);
    const parent = named !== undefined ? named : this.currentLeaf === null ? NONE : (this.nodeAt(this.currentLeaf) ?? NONE);
    if (named === undefined) this.reattached.push({ entry, parent: parent === NONE ? null : (this.entries[parent] as SessionEntry) });
    this.entries.push(entry);
    this.parents[at] = parent;
    this.depths[at] = parent === NONE ? 0 : (this.depths[parent] as number) + 1;
    this.firstChild[at] = NONE;
    this.lastChild[at] = NONE;
    this.nextSibling[at] = NONE;
    this.tips++;
    if (parent === NONE) {
      if (this.lastRoot === NONE) this.firstRoot = at;
      else this.nextSibling[this.lastRoot] = at;
      this.lastRoot = at;
    } else {
      const last = this.lastChild[parent] as number;
      if (last === NONE) {
        this.firstChild[parent] = at;
        this.tips--;
      } else this.nextSibling[last] = at;
      this.lastChild[parent] = at;
    }
    this.currentLeaf = entry.id;
  }

  get(id: string): SessionEntry | undefined {
    const at = this.positionOf.get(id);
    return at === undefined ? undefined : this.entries[at];
  }

  has(id: string): boolean {
    return this.positionOf.has(id);
  }

  /** True for entries that are tree nodes (everything but `leaf` moves). */
  isNode(id: string): boolean {
    return this.nodeAt(id) !== undefined;
  }

  /** The node an entry hangs from (its parentId's entry, or where it was reattached); null for roots, undefined for unknown ids. */
  parentOfNode(id: string): SessionEntry | null | undefined {
    const at = this.nodeAt(id);
    if (at === undefined) return undefined;
    const parent = this.parents[at] as number;
    return parent === NONE ? null : (this.entries[parent] ?? null);
  }

  /** Tree-node children of `id` (null: the roots), in file order. */
  children(id: string | null): SessionEntry[] {
    const parent = id === null ? NONE : this.nodeAt(id);
    if (parent === undefined) return [];
    const children: SessionEntry[] = [];
    for (let at = parent === NONE ? this.firstRoot : (this.firstChild[parent] as number); at !== NONE; at = this.nextSibling[at] as number) children.push(this.entries[at] as SessionEntry);
    return children;
  }

  /**
   * Root→leaf entries ending at `leafId` (a `leaf` entry id resolves to its target); empty for null or unknown ids.
   * The array is shared and read-only: asking again for the same leaf returns the same array, and when a later call
   * asks for a path that extends it (entries appended below its last entry) that array grows in place, so a new
   * entry costs itself, not a copy of the path. Nothing else ever changes an array handed out: a path that leaves it
   * (a branch switch, an earlier entry) is a new array. A caller that keeps a path across appends and needs it as it
   * was copies it (or keeps its length).
   */
  pathTo(leafId: string | null): readonly SessionEntry[] {
    if (leafId === null) return EMPTY;
    let at = this.positionOf.get(leafId);
    const asked = at === undefined ? undefined : this.entries[at];
    if (asked?.type === 'leaf') at = this.nodeAt(asked.targetId);
    if (at === undefined) return EMPTY;
    const path = this.lastPath;
    // The nodes below the shared prefix, leaf first, in a buffer kept for the next call (no array grown per path).
    const tail = (this.tail = room(this.tail, (this.depths[at] as number) + 1));
    let count = 0;
    let prefix = 0;
    // Every step goes to a node added earlier, so the walk ends within one step per node.
    for (let node: number = at; node !== NONE; node = this.parents[node] as number) {
      const depth = this.depths[node] as number;
      if (path[depth] === this.entries[node]) {
        prefix = depth + 1;
        break;
      }
      tail[count++] = node;
    }
    if (prefix === path.length) {
      for (let i = count - 1; i >= 0; i--) path.push(this.entries[tail[i] as number] as SessionEntry);
      notePathDepths(path, this.depthOf);
      return path;
    }
    const fresh = path.slice(0, prefix);
    for (let i = count - 1; i >= 0; i--) fresh.push(this.entries[tail[i] as number] as SessionEntry);
    // A copy has no room to grow, so its first append would copy it again: one push and pop leave room (V8 grows
    // an array's store by half and keeps it through the pop), and the appends after cost O(1) on average.
    const last = fresh.at(-1);
    if (last) {
      fresh.push(last);
      fresh.pop();
    }
    this.lastPath = fresh;
    notePathDepths(fresh, this.depthOf);
    return fresh;
  }

  /** Every branch tip (a node without children), newest first. */
  leaves(): SessionEntry[] {
    const tips: SessionEntry[] = [];
    for (let at = this.entries.length - 1; at >= 0; at--) {
      const entry = this.entries[at] as SessionEntry;
      if (entry.type !== 'leaf' && this.firstChild[at] === NONE) tips.push(entry);
    }
    return tips;
  }

  /** How many branch tips there are (kept as entries are added: no walk). */
  get tipCount(): number {
    return this.tips;
  }

  compactionsOnPath(leafId: string | null): CompactionEntry[] {
    return this.pathTo(leafId).filter((entry): entry is CompactionEntry => entry.type === 'compaction');
  }

  /** Entries whose parentId named no earlier node (each hangs from the entry before it on its branch instead). */
  danglingEntries(): SessionEntry[] {
    return this.reattached.map((item) => item.entry);
  }

  /** Where each entry with a missing parent was attached, in file order. */
  reattachments(): readonly Reattachment[] {
    return this.reattached;
  }

  /** The position of the node with `id` (not a leaf move), or undefined. */
  private nodeAt(id: string): number | undefined {
    const at = this.positionOf.get(id);
    return at === undefined || (this.entries[at] as SessionEntry).type === 'leaf' ? undefined : at;
  }

  /** The position of the node with `id` when it comes before position `before`, or undefined. */
  private nodeBefore(id: string, before: number): number | undefined {
    const at = this.positionOf.get(id);
    return at === undefined || at >= before || (this.entries[at] as SessionEntry).type === 'leaf' ? undefined : at;
  }

  private reserve(size: number): void {
    this.parents = room(this.parents, size);
    this.depths = room(this.depths, size);
    this.firstChild = room(this.firstChild, size);
    this.lastChild = room(this.lastChild, size);
    this.nextSibling = room(this.nextSibling, size);
  }
}
