// Where each imported entry hangs: pi's own tree (id/parentId, session versions 2 and 3) or file order (version 1).

type Json = Record<string, unknown>;

/**
 * Links between pi's lines and our entries while importing in file order. A pi line we do not import (an
 * extension's state, a damaged line) stands for its parent, so entries below it keep their place in the tree.
 * Parents always precede children here, so no input can make a walk over these links loop.
 */
export class PiTreeLinks {
  /** pi id → our entry standing for it (the last one made from its line, or its parent's when none was). */
  private readonly standIn = new Map<string, string | null>();
  private readonly lineOfPiId = new Map<string, number>();
  private readonly parentOf = new Map<string, string | null>();
  private readonly lineOf = new Map<string, number>();
  /** The entry standing for the line read last: pi's leaf once every line is read. */
  private previous: string | null = null;

  /** Our parent for the pi line at `index` (0-based): the entry standing for its parentId, or, in file order, for the line before it. */
  parentFor(line: Json, index: number, warnings: string[]): string | null {
    if (typeof line.id !== 'string' || !('parentId' in line)) return this.previous;
    if (line.parentId === null) return null;
    const parent = typeof line.parentId === 'string' && line.parentId !== line.id ? this.standIn.get(line.parentId) : undefined;
    if (parent !== undefined) return parent;
    warnings.push(`line ${index + 1}: its parent ${JSON.stringify(line.parentId)} is not an earlier entry; attached to the entry before it`);
    return this.previous;
  }

  /** Records what the line at `index` became: `made` (our ids, in order, each a child of the one before) under `parent`. */
  record(line: Json, index: number, parent: string | null, made: readonly string[]): void {
    let above = parent;
    for (const id of made) {
      this.parentOf.set(id, above);
      this.lineOf.set(id, index);
      above = id;
    }
    this.previous = above;
    if (typeof line.id === 'string' && !this.standIn.has(line.id)) {
      this.standIn.set(line.id, above);
      this.lineOfPiId.set(line.id, index);
    }
  }

  /** Our entry standing for a pi id, or undefined when no earlier line had it. */
  entryFor(piId: unknown): string | null | undefined {
    return typeof piId === 'string' ? this.standIn.get(piId) : undefined;
  }

  /** The 0-based line of a pi id (version 2+ compactions name the first kept entry by id). */
  lineOfId(piId: unknown): number | undefined {
    return typeof piId === 'string' ? this.lineOfPiId.get(piId) : undefined;
  }

  /** pi's leaf: the entry standing for the last line (pi resumes a session at its last entry). */
  get leaf(): string | null {
    return this.previous;
  }

  /**
   * The first entry to keep verbatim for a compaction below `parent`: the oldest of its ancestors read from
   * line `keptLine` or later (a kept line we did not import is replaced by the next imported one on the
   * path); null when there is none.
   */
  firstKept(parent: string | null, keptLine: number): string | null {
    let kept: string | null = null;
    let at = parent;
    for (let steps = 0; at !== null && steps <= this.parentOf.size; steps++) {
      if ((this.lineOf.get(at) ?? -1) < keptLine) break;
      kept = at;
      at = this.parentOf.get(at) ?? null;
    }
    return kept;
  }
}
