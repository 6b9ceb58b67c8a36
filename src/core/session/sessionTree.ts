// In-memory index of a session's entries: the tree through parentId, branch tips, and the current leaf.
import type { CompactionEntry, SessionEntry } from './entries';

/** An entry whose parentId named no earlier node, and the node it hangs from instead. */
export interface Reattachment {
  entry: SessionEntry;
  /** The current leaf when it was added (the previous entry on its branch), or null when there was none. */
  parent: SessionEntry | null;
}

export class SessionTree {
  /** All entries in file order (tree nodes and `leaf` moves). */
  readonly entries: SessionEntry[] = [];
  private readonly byId = new Map<string, SessionEntry>();
  /** Children by parent object (null: the roots), so a reused id cannot merge two nodes' children. */
  private readonly childrenOf = new Map<SessionEntry | null, SessionEntry[]>();
  /**
   * Each node's parent, by object: always a node added before it, so following these links ends at a root
   * after at most one step per node, whatever ids the entries carry (self-parents, loops, reused ids).
   */
  private readonly parentOf = new Map<SessionEntry, SessionEntry | null>();
  /** Depth of every node below its root: where it sits on any path through it. */
  private readonly depthOf = new Map<SessionEntry, number>();
  private readonly reattached: Reattachment[] = [];
  private currentLeaf: string | null = null;
  /**
   * The last path pathTo computed (private: callers get copies). A node's root→node path never changes,
   * so when a walk meets a node at its own depth in this path, the prefix up to it is that node's path.
   */
  private lastPath: SessionEntry[] = [];

  constructor(entries: readonly SessionEntry[] = []) {
    for (const entry of entries) this.add(entry);
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
    if (entry.type === 'leaf') {
      this.entries.push(entry);
      this.byId.set(entry.id, entry);
      if (this.isNode(entry.targetId)) this.currentLeaf = entry.targetId;
      return;
    }
    // Looked up before the entry itself is indexed, so an entry can never be its own parent.
    const named = entry.parentId === null ? null : this.node(entry.parentId);
    const current = this.currentLeaf === null ? null : (this.node(this.currentLeaf) ?? null);
    const parent = named === undefined ? current : named;
    if (named === undefined) this.reattached.push({ entry, parent });
    this.entries.push(entry);
    this.byId.set(entry.id, entry);
    const siblings = this.childrenOf.get(parent);
    if (siblings) siblings.push(entry);
    else this.childrenOf.set(parent, [entry]);
    this.parentOf.set(entry, parent);
    this.depthOf.set(entry, parent === null ? 0 : (this.depthOf.get(parent) ?? 0) + 1);
    this.currentLeaf = entry.id;
  }

  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** True for entries that are tree nodes (everything but `leaf` moves). */
  isNode(id: string): boolean {
    return this.node(id) !== undefined;
  }

  /** The node an entry hangs from (its parentId's entry, or where it was reattached); null for roots, undefined for unknown ids. */
  parentOfNode(id: string): SessionEntry | null | undefined {
    const entry = this.node(id);
    return entry === undefined ? undefined : (this.parentOf.get(entry) ?? null);
  }

  /** Tree-node children of `id` (null: the roots), in file order. */
  children(id: string | null): SessionEntry[] {
    const parent = id === null ? null : this.node(id);
    return parent === undefined ? [] : [...(this.childrenOf.get(parent) ?? [])];
  }

  /**
   * Root→leaf entries ending at `leafId` (a `leaf` entry id resolves to its target); [] for null or unknown ids.
   * Walks back only to the first ancestor on the previously computed path, so a new turn or a switch to a
   * nearby branch costs its new entries plus one array copy, not a lookup per ancestor. Returns a fresh array.
   */
  pathTo(leafId: string | null): SessionEntry[] {
    if (leafId === null) return [];
    let entry = this.byId.get(leafId);
    if (entry?.type === 'leaf') entry = this.byId.get(entry.targetId);
    const cached = this.lastPath;
    const tail: SessionEntry[] = [];
    let prefix = 0;
    // Every step goes to a node added earlier, so the walk ends within one step per node; the bound says so.
    for (let steps = 0; entry && entry.type !== 'leaf' && steps <= this.parentOf.size; steps++) {
      const depth = this.depthOf.get(entry) ?? -1;
      if (depth >= 0 && cached[depth] === entry) {
        prefix = depth + 1;
        break;
      }
      tail.push(entry);
      entry = this.parentOf.get(entry) ?? undefined;
    }
    if (prefix === 0 && tail.length === 0) return [];
    // The cache is private and only ever truncated and appended to, so no caller's array changes.
    cached.length = prefix;
    for (let i = tail.length - 1; i >= 0; i--) cached.push(tail[i] as SessionEntry);
    return cached.slice();
  }

  /** Every branch tip (a node without children), newest first. */
  leaves(): SessionEntry[] {
    const tips: SessionEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i];
      if (entry && entry.type !== 'leaf' && !this.childrenOf.has(entry)) tips.push(entry);
    }
    return tips;
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

  private node(id: string): SessionEntry | undefined {
    const entry = this.byId.get(id);
    return entry === undefined || entry.type === 'leaf' ? undefined : entry;
  }
}
