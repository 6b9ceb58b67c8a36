// What a stat index took since a mark: the changes of its entries kept while a mark needs them (the snapshot after a command is compared with the one before it this way), bounded.
/** Changes kept for marks at most; past it the oldest marks expire (their comparison says so) rather than memory growing. */
const JOURNAL_CAP = 400_000;

/** One change an index took: the entry before it (undefined: the key was not known) and after it (undefined: gone). */
export interface JournalChange<T> {
  key: string;
  before: T | undefined;
  after: T | undefined;
}

/** A point in the index's history: the changes since it are kept until it is released. */
export interface IndexMark {
  readonly seq: number;
}

export class IndexJournal<T> {
  private changes: Array<JournalChange<T>> = [];
  /** The number of changes before the first one kept. */
  private start = 0;
  private readonly marks = new Set<IndexMark>();
  private expiredBelow = 0;

  /** The number of changes taken so far (while some mark needed them). */
  private get seq(): number {
    return this.start + this.changes.length;
  }

  /** Takes one change; nothing is kept while no mark is held. */
  record(key: string, before: T | undefined, after: T | undefined): void {
    if (this.marks.size === 0) return;
    this.changes.push({ key, before, after });
    if (this.changes.length <= JOURNAL_CAP) return;
    this.expiredBelow = this.seq;
    this.start = this.seq;
    this.changes = [];
  }

  /** Marks the history as it is now: changesSince gives what changed after it, until it is released. */
  mark(): IndexMark {
    const mark = { seq: this.seq };
    this.marks.add(mark);
    return mark;
  }

  /** Lets go of a mark: the changes no other mark needs are dropped. */
  release(mark: IndexMark): void {
    if (!this.marks.delete(mark)) return;
    let oldest = this.seq;
    for (const kept of this.marks) oldest = Math.min(oldest, kept.seq);
    if (oldest <= this.start) return;
    this.changes = this.changes.slice(oldest - this.start);
    this.start = oldest;
  }

  /**
   * Every key that changed since `mark`, once: the entry it had at the mark and the one it has now (either may be
   * undefined). Undefined when the mark expired: more changed meanwhile than the journal keeps.
   */
  changesSince(mark: IndexMark): Array<JournalChange<T>> | undefined {
    if (mark.seq < this.expiredBelow || mark.seq < this.start) return undefined;
    const byKey = new Map<string, JournalChange<T>>();
    for (let at = mark.seq - this.start; at < this.changes.length; at++) {
      const change = this.changes[at] as JournalChange<T>;
      const known = byKey.get(change.key);
      if (known) known.after = change.after;
      else byKey.set(change.key, { ...change });
    }
    return [...byKey.values()];
  }
}
