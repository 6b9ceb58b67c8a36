// .gitignore patterns compiled for matching in time linear in the name: a segment split at its stars, a path at its `**`, the runs between found left to right (never backtracking), every step counted (matchSteps.ts).
import { ANY, Block, CharClass, type MatchBudget } from './matchSteps';

/** The longest path a file system takes (Linux's PATH_MAX, in bytes): a pattern that needs more matches nothing. */
const LONGEST_PATH = 4096;

/**
 * One segment of a pattern (no slash), as git's wildmatch reads it: backslash escapes, `*` (any run, never a slash),
 * `?` and classes. Split at its stars into a head (at the start), a tail (at the end) and the blocks between, found
 * leftmost-first in order: for `*` patterns that choice is never wrong, so there is nothing to backtrack.
 */
export class SegmentPattern {
  private constructor(
    private readonly head: Block,
    private readonly middle: readonly Block[],
    private readonly tail: Block | undefined,
    /** Code points a name needs at least (its literals, `?` and classes). */
    private readonly minLength: number,
  ) {}

  /** The pattern's text when it has no wildcard (a plain name: looked up in a map instead), else undefined. */
  static literalOf(segment: string): string | undefined {
    let text = '';
    for (let at = 0; at < segment.length; at++) {
      const char = segment[at] as string;
      if (char === '\\' && at + 1 < segment.length) text += segment[++at];
      else if (char === '*' || char === '?' || (char === '[' && segment.indexOf(']', at + 2) !== -1)) return undefined;
      else text += char;
    }
    return text;
  }

  /** A pattern no name can match (one that needs more characters than any path a file system takes). */
  private static impossible(): SegmentPattern {
    return new SegmentPattern(new Block([], []), [], undefined, Number.POSITIVE_INFINITY);
  }

  static compile(segment: string): SegmentPattern {
    const classes: CharClass[] = [];
    const blocks: number[][] = [];
    let current: number[] = [];
    let needed = 0;
    for (let at = 0; at < segment.length; at++) {
      // Compiling stops where the pattern needs more than a path can hold: a hostile million-character rule costs 4 KB.
      if (needed > LONGEST_PATH) return SegmentPattern.impossible();
      const char = segment.codePointAt(at) as number;
      if (char > 0xffff) at++;
      if (char === 0x5c && at + 1 < segment.length) {
        const next = segment.codePointAt(++at) as number;
        if (next > 0xffff) at++;
        current.push(next);
        needed++;
      } else if (char === 0x2a) {
        if (current.length > 0 || blocks.length === 0) {
          blocks.push(current);
          current = [];
        }
      } else if (char === 0x3f) {
        current.push(ANY);
        needed++;
      } else if (char === 0x5b && segment.indexOf(']', at + 2) !== -1) {
        const end = segment.indexOf(']', at + 2);
        classes.push(CharClass.parse(segment.slice(at + 1, end)));
        current.push(-1 - classes.length);
        needed++;
        at = end;
      } else {
        current.push(char);
        needed++;
      }
    }
    blocks.push(current);
    const made = blocks.map((tokens) => new Block(tokens, classes));
    const minLength = made.reduce((sum, block) => sum + block.length, 0);
    const head = made[0] as Block;
    if (made.length === 1) return new SegmentPattern(head, [], undefined, minLength);
    // A trailing star leaves an empty last block: no tail then.
    const last = made.at(-1) as Block;
    return new SegmentPattern(head, made.slice(1, -1), last, minLength);
  }

  /** True when the pattern matches all of `name`; every step counted in `budget`. */
  matches(name: readonly number[], budget: MatchBudget): boolean {
    budget.spend(1);
    const length = name.length;
    if (length < this.minLength) return false;
    if (!this.tail) return length === this.head.length && this.head.matchesAt(name, 0, budget);
    if (!this.head.matchesAt(name, 0, budget)) return false;
    const end = length - this.tail.length;
    if (!this.tail.matchesAt(name, end, budget)) return false;
    let at = this.head.length;
    for (const block of this.middle) {
      const found = block.find(name, at, end, budget);
      if (found < 0) return false;
      at = found + block.length;
    }
    return true;
  }
}

/** One element of a run of a pattern with a slash: a segment pattern, or any one segment (of a trailing `/**`). */
type PathToken = SegmentPattern | 'any-one';

/**
 * A pattern with a slash, over the path's segments below the .gitignore's folder: `**` spans any number of them,
 * a trailing `/**` one at least (everything inside, never the folder itself). Matched like a segment, one level up:
 * runs between `**` found leftmost-first, never backtracking beyond them.
 */
export class PathPattern {
  /** Segments a path needs at least. */
  private readonly minLength: number;

  private constructor(
    private readonly head: readonly PathToken[],
    private readonly middle: ReadonlyArray<readonly PathToken[]>,
    private readonly tail: readonly PathToken[] | undefined,
  ) {
    this.minLength = head.length + (tail?.length ?? 0) + middle.reduce((sum, run) => sum + run.length, 0);
  }

  static compile(pattern: string): PathPattern {
    const segments = pattern.split('/').filter((segment) => segment !== '');
    const runs: PathToken[][] = [[]];
    segments.forEach((segment, index) => {
      // Two stars or more make a whole segment `**` (git's wildmatch reads `***` so too).
      if (/^\*\*+$/.test(segment)) {
        if (index === segments.length - 1) (runs.at(-1) as PathToken[]).push('any-one');
        if ((runs.at(-1) as PathToken[]).length > 0 || runs.length === 1) runs.push([]);
        return;
      }
      (runs.at(-1) as PathToken[]).push(SegmentPattern.compile(segment));
    });
    const head = runs[0] as PathToken[];
    if (runs.length === 1) return new PathPattern(head, [], undefined);
    return new PathPattern(head, runs.slice(1, -1), runs.at(-1));
  }

  private static runAt(run: readonly PathToken[], segments: ReadonlyArray<readonly number[]>, at: number, budget: MatchBudget): boolean {
    for (let k = 0; k < run.length; k++) {
      const token = run[k] as PathToken;
      budget.spend(1);
      if (token !== 'any-one' && !token.matches(segments[at + k] as readonly number[], budget)) return false;
    }
    return true;
  }

  /** True when the pattern matches the whole path (its segments as code points). */
  matches(segments: ReadonlyArray<readonly number[]>, budget: MatchBudget): boolean {
    const count = segments.length;
    budget.spend(1);
    if (count < this.minLength) return false;
    if (!this.tail) return count === this.head.length && PathPattern.runAt(this.head, segments, 0, budget);
    if (!PathPattern.runAt(this.head, segments, 0, budget)) return false;
    const end = count - this.tail.length;
    if (!PathPattern.runAt(this.tail, segments, end, budget)) return false;
    let at = this.head.length;
    for (const run of this.middle) {
      let found = -1;
      for (let start = at; start + run.length <= end && found < 0; start++) if (PathPattern.runAt(run, segments, start, budget)) found = start;
      if (found < 0) return false;
      at = found + run.length;
    }
    return true;
  }
}
