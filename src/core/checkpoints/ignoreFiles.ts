// The .gitignore files of a folder tree as git applies them (a file per folder, deeper files first, the last matching rule decides), read once per command.
import { PathPattern, SegmentPattern } from './ignorePatterns';
import { codePointsOf, OverBudget, type MatchBudget } from './matchSteps';
import { readSmallRegularFile } from './exactFiles';
import type { WalkSlicer } from './walkSlices';

/** Far more than any real .gitignore; a larger one is not read (and ignores nothing). */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
/** Rules kept of one file: a hostile one cannot make every file of the walk test a million patterns. */
const MAX_RULES = 5000;
/** Compiling one character of a rule costs about as much as this many matching steps (measured): how parsing is counted. */
const COMPILE_STEPS_PER_CHAR = 8;
/** Git matches case-insensitively where the file system usually is (core.ignorecase). */
const FOLD_CASE = process.platform === 'win32' || process.platform === 'darwin';

interface Rule {
  /** Position in its file: among matching rules the highest wins. */
  index: number;
  negated: boolean;
  directoryOnly: boolean;
}

/** A rule without a wildcard: looked up by the entry's name (no slash) or by its path below the file's folder. */
interface PlainRule {
  rule: Rule;
  text: string;
  byPath: boolean;
}

/**
 * A rule with a wildcard. Without a slash it is tested against the entry's name at any depth; with one, against the
 * path below the .gitignore's folder, segment by segment.
 */
class WildRule {
  private readonly compiled: ReadonlyArray<SegmentPattern | PathPattern>;

  constructor(
    readonly rule: Rule,
    sources: readonly string[],
    byPath: boolean,
  ) {
    this.compiled = sources.map((source) => (byPath ? PathPattern.compile(source) : SegmentPattern.compile(source)));
  }

  matches(entry: EntryText, baseLength: number, budget: MatchBudget): boolean {
    for (const pattern of this.compiled) {
      if (pattern instanceof SegmentPattern ? pattern.matches(entry.codesOfName(), budget) : pattern.matches(entry.codesBelow(baseLength), budget)) return true;
    }
    return false;
  }
}

// A pattern with a slash as git matches it: git compares the part before its first wildcard as plain text and
// wildmatches the rest on its own, so a run of stars right after that part counts as a whole-segment `**` although no
// slash precedes it (`a**` then `/b`). That reads as two patterns: the part joined to what follows the stars' slash
// (`ab`), or the part with a star, then any run of folders, then the rest; stars at the very end as `P*` or `P*` + `/**`.
function pathAlternatives(pattern: string): string[] {
  const first = pattern.search(/[*?[\\]/);
  const stars = first > 0 && pattern[first - 1] !== '/' ? (/^\*{2,}/.exec(pattern.slice(first))?.[0].length ?? 0) : 0;
  const after = first + stars;
  if (stars === 0 || (after < pattern.length && pattern[after] !== '/')) return [pattern];
  const prefix = pattern.slice(0, first);
  if (after === pattern.length) return [`${prefix}*`, `${prefix}*/**`];
  const rest = pattern.slice(after + 1);
  return [`${prefix}${rest}`, `${prefix}*/**/${rest}`];
}

/** One entry being judged: its name and path (folded), and their code points, made once when a wildcard rule needs them. */
export class EntryText {
  private nameCodes: number[] | undefined;
  private readonly pathCodes = new Map<number, number[][]>();

  constructor(
    readonly path: string,
    readonly name: string,
    readonly isDirectory: boolean,
    private readonly budget: MatchBudget,
  ) {}

  codesOfName(): number[] {
    if (!this.nameCodes) {
      this.budget.spend(this.name.length);
      this.nameCodes = codePointsOf(this.name);
    }
    return this.nameCodes;
  }

  /** The segments of the path below the folder whose key prefix is `baseLength` characters long. */
  codesBelow(baseLength: number): number[][] {
    let codes = this.pathCodes.get(baseLength);
    if (!codes) {
      this.budget.spend(this.path.length - baseLength);
      codes = this.path.slice(baseLength).split('/').map(codePointsOf);
      this.pathCodes.set(baseLength, codes);
    }
    return codes;
  }
}

/** One parsed .gitignore. */
export class IgnoreFile {
  /** Rules without a wildcard, by name or by path (folded when the platform folds case). */
  private readonly names = new Map<string, Rule[]>();
  private readonly paths = new Map<string, Rule[]>();
  /** Rules with a wildcard, highest index first: the first that matches decides (unless a plain rule above it did). */
  private readonly wild: WildRule[] = [];

  constructor(rules: ReadonlyArray<WildRule | PlainRule>) {
    for (const item of rules) {
      if (item instanceof WildRule) {
        this.wild.push(item);
        continue;
      }
      const map = item.byPath ? this.paths : this.names;
      const list = map.get(item.text) ?? [];
      list.push(item.rule);
      map.set(item.text, list);
    }
    this.wild.reverse();
  }

  get empty(): boolean {
    return this.names.size === 0 && this.paths.size === 0 && this.wild.length === 0;
  }

  /**
   * The decision of this file for an entry: true (ignored), false (re-included by a `!` rule) or undefined (no rule
   * matches). `baseLength` is the length of this file's folder's key prefix in `entry.path`. Every step is counted
   * in `budget`, which throws OverBudget when the entry's budget is spent.
   */
  decide(entry: EntryText, baseLength: number, budget: MatchBudget): boolean | undefined {
    let best: Rule | undefined;
    const consider = (list: readonly Rule[] | undefined): void => {
      for (const rule of list ?? []) if ((!rule.directoryOnly || entry.isDirectory) && (!best || rule.index > best.index)) best = rule;
    };
    consider(this.names.get(entry.name));
    if (this.paths.size > 0) consider(this.paths.get(baseLength === 0 ? entry.path : entry.path.slice(baseLength)));
    for (const wild of this.wild) {
      const rule = wild.rule;
      if (best && rule.index < best.index) break;
      budget.spend(1);
      if (rule.directoryOnly && !entry.isDirectory) continue;
      if (wild.matches(entry, baseLength, budget)) {
        best = rule;
        break;
      }
    }
    return best === undefined ? undefined : !best.negated;
  }
}

function fold(text: string): string {
  return FOLD_CASE ? text.toLowerCase() : text;
}

/** The line without its trailing spaces and tabs, unless the last is escaped with a backslash (as git reads it). */
function trimTrailing(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  if (end < line.length && end > 0 && line[end - 1] === '\\') end++;
  return end === line.length ? line : line.slice(0, end);
}

/** One line of a .gitignore as a rule (undefined for a blank line or a comment); wildcards are compiled when first needed. */
function parseRule(raw: string, index: number): WildRule | PlainRule | undefined {
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line === '' || line.startsWith('#')) return undefined;
  line = trimTrailing(line);
  const negated = line.startsWith('!');
  if (negated) line = line.slice(1);
  if (line.startsWith('\\#') || line.startsWith('\\!')) line = line.slice(1);
  const directoryOnly = line.endsWith('/') && !line.endsWith('\\/');
  if (directoryOnly) line = line.slice(0, -1);
  if (line === '') return undefined;
  line = fold(line);
  const rule: Rule = { index, negated, directoryOnly };
  if (!line.includes('/')) {
    const text = SegmentPattern.literalOf(line);
    return text === undefined ? new WildRule(rule, [line], false) : { rule, text, byPath: false };
  }
  // One leading slash anchors the pattern; any other empty segment (`a//b`, `//a`, `a//`) matches no path, as in git.
  const segments = (line.startsWith('/') ? line.slice(1) : line).split('/');
  if (segments.some((segment) => segment === '')) return undefined;
  const plain = segments.map((segment) => SegmentPattern.literalOf(segment));
  if (plain.every((text) => text !== undefined)) return { rule, text: plain.join('/'), byPath: true };
  return new WildRule(rule, pathAlternatives(segments.join('/')), true);
}

/** Parsed .gitignore texts by content: the same text gives the same object, so decisions made under it can be kept. */
const parsedTexts = new Map<string, IgnoreFile>();
const MAX_PARSED_TEXTS = 2000;

/** The rules of one .gitignore text (the same object for the same text while it is remembered). */
export async function ignoreFileOf(text: string, slicer?: WalkSlicer): Promise<IgnoreFile> {
  let parsed = parsedTexts.get(text);
  if (!parsed) {
    parsed = await parseIgnoreFile(text, slicer);
    if (parsedTexts.size >= MAX_PARSED_TEXTS) parsedTexts.clear();
    parsedTexts.set(text, parsed);
  }
  return parsed;
}

/**
 * The rules of one .gitignore text, in order (at most MAX_RULES), each wildcard compiled now. The work is counted in
 * `slicer`, which pauses between rules when it has done its share: a 1 MB file of 5,000 long rules never holds the
 * event loop in one stretch.
 */
export async function parseIgnoreFile(text: string, slicer?: WalkSlicer): Promise<IgnoreFile> {
  const rules: Array<WildRule | PlainRule> = [];
  for (const line of text.split('\n')) {
    const rule = parseRule(line, rules.length);
    if (rule) rules.push(rule);
    if (rules.length >= MAX_RULES) break;
    slicer?.count('matchSteps', (line.length + 1) * COMPILE_STEPS_PER_CHAR);
    if (slicer?.due()) await slicer.pause();
  }
  return new IgnoreFile(rules);
}

/** One folder's .gitignore on the way down: its rules and the key prefix of that folder ("" at the top, else "a/b/"). */
export interface IgnoreLevel {
  base: string;
  file: IgnoreFile;
}

/**
 * The .gitignore files of one snapshot pair: a folder's file is read the first time the folder is walked and kept,
 * so the snapshot after a command judges every path by the same rules as the one before it (a command that
 * removes or rewrites a .gitignore cannot make the files it ignored look created or deleted). A folder the command
 * created has no earlier rules: its own .gitignore is read then.
 */
export class FolderRules {
  private readonly files = new Map<string, IgnoreFile | null>();

  /**
   * The rules of the .gitignore in the folder with key prefix `base`, at `ignoreFilePath` (undefined when the folder
   * lists none); null when it has none.
   */
  async rulesOf(base: string, ignoreFilePath: (() => string | Buffer) | undefined, slicer?: WalkSlicer): Promise<IgnoreFile | null> {
    const known = this.files.get(base);
    if (known !== undefined) return known;
    const data = ignoreFilePath ? readSmallRegularFile(ignoreFilePath(), MAX_IGNORE_FILE_BYTES)?.data : undefined;
    slicer?.count('bytes', data?.length ?? 0);
    const parsed = data === undefined ? null : await ignoreFileOf(data.toString('utf8'), slicer);
    const kept = parsed && !parsed.empty ? parsed : null;
    this.files.set(base, kept);
    return kept;
  }

  /**
   * True when the entry `key` (named `name`, a folder or not) is ignored by the levels above it, deepest first.
   * Judged within the budget of one entry: past it the entry is not ignored (it is snapshotted; counted in
   * `budget.exceeded`), so no .gitignore can make one entry cost more than STEPS_PER_ENTRY steps.
   */
  static ignored(levels: readonly IgnoreLevel[], key: string, name: string, isDirectory: boolean, budget: MatchBudget): boolean {
    if (levels.length === 0) return false;
    budget.begin();
    const entry = new EntryText(fold(key), fold(name), isDirectory, budget);
    try {
      for (let at = levels.length - 1; at >= 0; at--) {
        const level = levels[at] as IgnoreLevel;
        const decision = level.file.decide(entry, level.base.length, budget);
        if (decision !== undefined) return decision;
      }
    } catch (error) {
      if (!(error instanceof OverBudget)) throw error;
      budget.exceeded++;
    }
    return false;
  }
}
