// In-memory index of a session's entries: the tree through parentId, branch tips, and the current leaf.
import type { CompactionEntry, SessionEntry } from './entries';

export class SessionTree {
  /** All entries in file order (tree nodes and `leaf` moves). */
  readonly entries: SessionEntry[] = [];
  private readonly byId = new Map<string, SessionEntry>();
  private readonly childrenOf = new Map<string | null, SessionEntry[]>();
  /** Parent ids that were unknown when their entry was added; such entries act as roots. */
  private readonly dangling = new Set<string>();
  private currentLeaf: string | null = null;
  /** Depth of every tree node below its root (dangling entries are roots): where it sits on any path through it. */
  private readonly depthOf = new Map<string, number>();
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

  /** Indexes one entry in file order. A `leaf` entry moves the current leaf instead of adding a node. */
  add(entry: SessionEntry): void {
    // A reused id re-points lookups through it, which a cached prefix would not see.
    if (this.byId.has(entry.id)) this.lastPath = [];
    this.entries.push(entry);
    this.byId.set(entry.id, entry);
    if (entry.type === 'leaf') {
      if (this.isNode(entry.targetId)) this.currentLeaf = entry.targetId;
      return;
    }
    // A parent must precede its child in the file; anything else is dangling, which also rules out cycles.
    let parent = entry.parentId;
    if (parent !== null && !this.isNode(parent)) {
      this.dangling.add(entry.id);
      parent = null;
    }
    const siblings = this.childrenOf.get(parent);
    if (siblings) siblings.push(entry);
    else this.childrenOf.set(parent, [entry]);
    this.depthOf.set(entry.id, parent === null ? 0 : (this.depthOf.get(parent) ?? 0) + 1);
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
    const entry = this.byId.get(id);
    return entry !== undefined && entry.type !== 'leaf';
  }

  /** Tree-node children of `id` (null: the roots), in file order. */
  children(id: string | null): SessionEntry[] {
    return [...(this.childrenOf.get(id) ?? [])];
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
    while (entry && entry.type !== 'leaf') {
      const depth = this.depthOf.get(entry.id) ?? -1;
      if (depth >= 0 && cached[depth] === entry) {
        prefix = depth + 1;
        break;
      }
      tail.push(entry);
      if (entry.parentId === null || this.dangling.has(entry.id)) break;
      entry = this.byId.get(entry.parentId);
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
      if (entry && entry.type !== 'leaf' && !this.childrenOf.has(entry.id)) tips.push(entry);
    }
    return tips;
  }

  compactionsOnPath(leafId: string | null): CompactionEntry[] {
    return this.pathTo(leafId).filter((entry): entry is CompactionEntry => entry.type === 'compaction');
  }

  /** Entries whose parentId named no earlier node. */
  danglingEntries(): SessionEntry[] {
    return this.entries.filter((entry) => this.dangling.has(entry.id));
  }
}
