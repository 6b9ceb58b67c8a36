// The steps of .gitignore matching, counted against a budget per entry, and the runs a pattern is made of (literal code points, `?`, classes), each found without going back in the name.

/**
 * Steps one entry's judgement may take, over every rule of every .gitignore above it. A real .gitignore takes a few
 * hundred; past the budget the entry is judged NOT ignored (it is snapshotted): a hostile .gitignore then costs some
 * space, never a file a restore should have been able to put back.
 */
export const STEPS_PER_ENTRY = 50_000;

/** Thrown by MatchBudget.spend past the budget (one instance: nothing is allocated on the hot path). */
export class OverBudget extends Error {
  constructor() {
    super('the .gitignore rules took more steps than one entry may take');
    this.name = 'OverBudget';
  }
}

const OVER_BUDGET = new OverBudget();

/** The steps one entry's judgement has spent (and all entries' together, for slicing the walk). */
export class MatchBudget {
  /** Every step spent since this budget was made. */
  total = 0;
  /** Entries whose budget ran out (judged not ignored). */
  exceeded = 0;
  private left = STEPS_PER_ENTRY;

  constructor(private readonly perEntry = STEPS_PER_ENTRY) {
    this.left = perEntry;
  }

  /** Starts the judgement of one entry with a full budget. */
  begin(): void {
    this.left = this.perEntry;
  }

  /** Counts work that is not the entry's own (compiling a rule once for every entry after it): in `total` only. */
  count(steps: number): void {
    this.total += steps;
  }

  /** Counts `steps`; throws OverBudget once the entry's budget is spent. */
  spend(steps: number): void {
    this.total += steps;
    this.left -= steps;
    if (this.left < 0) throw OVER_BUDGET;
  }
}

/** A name as code points (a `?` or a class consumes one code point, as git does on UTF-8 names). */
export function codePointsOf(text: string): number[] {
  const points: number[] = [];
  for (let at = 0; at < text.length; at++) {
    const code = text.codePointAt(at) as number;
    points.push(code);
    if (code > 0xffff) at++;
  }
  return points;
}

/** Classes with more items than this are built by counting rather than sorting. */
const SORTED_CLASS_ITEMS = 4096;

/** A `[...]` class as sorted, merged ranges of code points (binary-searched: one step whatever its length). */
export class CharClass {
  constructor(
    private readonly starts: Int32Array,
    private readonly ends: Int32Array,
    private readonly negated: boolean,
  ) {}

  /** `!` or `^` first negates; `a-z` is a range (a `-` first or last is itself), as git's wildmatch reads them. */
  static parse(body: string): CharClass {
    const negated = body.startsWith('!') || body.startsWith('^');
    const items = codePointsOf(negated ? body.slice(1) : body);
    if (items.length > SORTED_CLASS_ITEMS) return CharClass.counted(items, negated);
    const ranges: Array<[number, number]> = [];
    CharClass.eachRange(items, (low, high) => ranges.push([low, high]));
    ranges.sort((a, b) => a[0] - b[0]);
    const starts: number[] = [];
    const ends: number[] = [];
    for (const [low, high] of ranges) {
      if (ends.length > 0 && low <= (ends.at(-1) as number) + 1) ends[ends.length - 1] = Math.max(ends.at(-1) as number, high);
      else {
        starts.push(low);
        ends.push(high);
      }
    }
    return new CharClass(Int32Array.from(starts), Int32Array.from(ends), negated);
  }

  /** Calls `take` with each range of the class's items (a single character is a range of one), in their order. */
  private static eachRange(points: readonly number[], take: (low: number, high: number) => void): void {
    for (let at = 0; at < points.length; at++) {
      const low = points[at] as number;
      if (points[at + 1] === 0x2d && at + 2 < points.length) {
        const high = points[at + 2] as number;
        if (high >= low) take(low, high);
        at += 2;
      } else take(low, low);
    }
  }

  /**
   * A class of many items (a hostile one can hold a million): where ranges start and end is counted over the code
   * points, then read off in order, so building it is linear, never a sort of a million ranges.
   */
  private static counted(items: readonly number[], negated: boolean): CharClass {
    let depth = new Int32Array(0x10002);
    CharClass.eachRange(items, (low, high) => {
      if (high + 1 >= depth.length) {
        const larger = new Int32Array(0x110002);
        larger.set(depth);
        depth = larger;
      }
      depth[low] = (depth[low] ?? 0) + 1;
      depth[high + 1] = (depth[high + 1] ?? 0) - 1;
    });
    const starts: number[] = [];
    const ends: number[] = [];
    let open = 0;
    for (let code = 0; code < depth.length; code++) {
      const was = open;
      open += depth[code] ?? 0;
      if (was === 0 && open > 0) starts.push(code);
      else if (was > 0 && open === 0) ends.push(code - 1);
    }
    return new CharClass(Int32Array.from(starts), Int32Array.from(ends), negated);
  }

  has(code: number): boolean {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (code < (this.starts[middle] as number)) high = middle - 1;
      else if (code > (this.ends[middle] as number)) low = middle + 1;
      else return !this.negated;
    }
    return this.negated;
  }
}

/** `?` in a block: any one code point. Classes are -2, -3, …; literal code points are themselves (never negative). */
export const ANY = -1;

/** A run of a pattern between two stars: literal code points, `?` and classes, one code point each. */
export class Block {
  /** For a block of literals only: KMP's failure table, so finding it never goes back in the name. */
  private readonly failure: number[] | undefined;

  constructor(
    readonly tokens: readonly number[],
    private readonly classes: readonly CharClass[],
  ) {
    let literal = true;
    for (let k = 0; k < tokens.length && literal; k++) literal = (tokens[k] as number) >= 0;
    this.failure = literal ? failureTable(tokens) : undefined;
  }

  get length(): number {
    return this.tokens.length;
  }

  private accepts(token: number, code: number): boolean {
    if (token >= 0) return token === code;
    return token === ANY || (this.classes[-2 - token] as CharClass).has(code);
  }

  /** True when the block matches `name` at `at` (the caller checked that it fits). */
  matchesAt(name: readonly number[], at: number, budget: MatchBudget): boolean {
    const tokens = this.tokens;
    for (let k = 0; k < tokens.length; k++) {
      if (!this.accepts(tokens[k] as number, name[at + k] as number)) {
        budget.spend(k + 1);
        return false;
      }
    }
    budget.spend(tokens.length + 1);
    return true;
  }

  /**
   * The first position in [from, to - length] where the block matches, or -1. Literal blocks: KMP, at most
   * 2 × (to − from) steps. Blocks with `?` or classes: tried at each position (length steps at most each), which the
   * per-entry budget bounds.
   */
  find(name: readonly number[], from: number, to: number, budget: MatchBudget): number {
    const tokens = this.tokens;
    const length = tokens.length;
    if (length === 0) return from;
    if (!this.failure) {
      for (let at = from; at + length <= to; at++) if (this.matchesAt(name, at, budget)) return at;
      return -1;
    }
    const failure = this.failure;
    let matched = 0;
    let steps = 0;
    for (let at = from; at < to; at++) {
      const code = name[at] as number;
      while (matched > 0 && tokens[matched] !== code) {
        matched = failure[matched - 1] as number;
        steps++;
      }
      steps++;
      if (tokens[matched] === code) matched++;
      if (matched === length) {
        budget.spend(steps);
        return at - length + 1;
      }
    }
    budget.spend(steps);
    return -1;
  }
}

function failureTable(tokens: readonly number[]): number[] {
  const failure: number[] = [0];
  let matched = 0;
  for (let at = 1; at < tokens.length; at++) {
    while (matched > 0 && tokens[at] !== tokens[matched]) matched = failure[matched - 1] as number;
    if (tokens[at] === tokens[matched]) matched++;
    failure.push(matched);
  }
  return failure;
}
