// The .gitignore files of a folder tree as git applies them (a file per folder, deeper files first, the last matching rule decides), read once per command.
import { classTest } from '../tools/globPattern';
import { wildcardMatch, type WildcardToken } from '../tools/wildcardMatch';
import { readSmallRegularFile } from './exactFiles';

/** Far more than any real .gitignore; a larger one is not read (and ignores nothing). */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
/** Rules kept of one file: a hostile one cannot make every file of the walk test a million patterns. */
const MAX_RULES = 5000;
/** Git matches case-insensitively where the file system usually is (core.ignorecase). */
const FOLD_CASE = process.platform === 'win32' || process.platform === 'darwin';

type CharToken = WildcardToken<string>;
type SegmentToken = WildcardToken<string>;

/** How one rule tests a name or path; the common shapes are plain string tests. */
type NameTest = { kind: 'literal'; text: string } | { kind: 'suffix'; text: string } | { kind: 'prefix'; text: string } | { kind: 'wild'; tokens: CharToken[] };

interface Rule {
  /** Position in its file: among matching rules the highest wins. */
  index: number;
  negated: boolean;
  directoryOnly: boolean;
  /** Pattern without a slash: tested against the entry's name at any depth. */
  name?: NameTest;
  /** Pattern with a slash: tested against the path below the .gitignore's folder, segment by segment. */
  path?: SegmentToken[];
  /** Literal segments a path must contain for `path` to match: a cheap test before the segment-by-segment one. */
  needs?: string[];
}

/** One parsed .gitignore. */
export class IgnoreFile {
  /** Literal-name rules by name (folded when the platform folds case): the highest index per name and kind. */
  private readonly literals = new Map<string, Rule[]>();
  private readonly others: Rule[] = [];

  constructor(rules: readonly Rule[]) {
    for (const rule of rules) {
      if (rule.name?.kind === 'literal') {
        const list = this.literals.get(rule.name.text) ?? [];
        list.push(rule);
        this.literals.set(rule.name.text, list);
      } else this.others.push(rule);
    }
  }

  get empty(): boolean {
    return this.literals.size === 0 && this.others.length === 0;
  }

  /**
   * The decision of this file for an entry: true (ignored), false (re-included by a `!` rule) or undefined (no rule
   * matches). `below` is the entry's path under this file's folder, `name` its last segment (both folded already).
   */
  decide(below: string, name: string, isDirectory: boolean): boolean | undefined {
    let best: Rule | undefined;
    for (const rule of this.literals.get(name) ?? []) if ((!rule.directoryOnly || isDirectory) && (!best || rule.index > best.index)) best = rule;
    for (const rule of this.others) {
      if (best && rule.index < best.index) continue;
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.name ? testName(rule.name, name) : (rule.needs ?? []).every((part) => below.includes(part)) && testPath(rule.path ?? [], below)) best = rule;
    }
    return best === undefined ? undefined : !best.negated;
  }
}

function testName(test: NameTest, name: string): boolean {
  switch (test.kind) {
    case 'literal':
      return name === test.text;
    case 'suffix':
      return name.endsWith(test.text);
    case 'prefix':
      return name.startsWith(test.text);
    case 'wild':
      return wildcardMatch(test.tokens, Array.from(name));
  }
}

function testPath(tokens: readonly SegmentToken[], below: string): boolean {
  return wildcardMatch(tokens, below.split('/'));
}

/** One segment of a pattern (no slash) as a name test: backslash escapes, `*`, `?` and classes; `*` never matches a slash. */
function compileSegment(segment: string): NameTest {
  const chars = Array.from(segment);
  const tokens: CharToken[] = [];
  let literal = '';
  let wild = false;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    if (char === '\\' && i + 1 < chars.length) {
      const next = chars[++i] as string;
      literal += next;
      tokens.push({ star: false, test: (other) => other === next });
    } else if (char === '*') {
      wild = true;
      if (tokens.at(-1)?.star !== true) tokens.push({ star: true });
    } else if (char === '?') {
      wild = true;
      tokens.push({ star: false, test: () => true });
    } else if (char === '[' && chars.indexOf(']', i + 2) !== -1) {
      wild = true;
      const end = chars.indexOf(']', i + 2);
      tokens.push({ star: false, test: classTest(chars.slice(i + 1, end).join('')) });
      i = end;
    } else {
      literal += char;
      tokens.push({ star: false, test: (other) => other === char });
    }
  }
  if (!wild) return { kind: 'literal', text: literal };
  const plain = (from: number, to: number): string | undefined => {
    const part = chars.slice(from, to);
    return part.some((char) => '*?[\\'.includes(char)) ? undefined : part.join('');
  };
  if (chars[0] === '*' && chars.lastIndexOf('*') === 0) {
    const rest = plain(1, chars.length);
    if (rest !== undefined) return { kind: 'suffix', text: rest };
  }
  if (chars.at(-1) === '*' && chars.indexOf('*') === chars.length - 1) {
    const head = plain(0, chars.length - 1);
    if (head !== undefined) return { kind: 'prefix', text: head };
  }
  return { kind: 'wild', tokens };
}

/** A pattern with a slash, over the path segments below the .gitignore's folder; `**` spans any number of them. */
function compilePath(pattern: string): SegmentToken[] {
  const segments = pattern.split('/').filter((segment) => segment !== '');
  const tokens: SegmentToken[] = [];
  segments.forEach((segment, index) => {
    if (segment === '**') {
      // A trailing "/**" matches everything inside, never the folder itself: one segment at least.
      if (index === segments.length - 1) tokens.push({ star: false, test: () => true });
      if (tokens.at(-1)?.star !== true) tokens.push({ star: true });
      return;
    }
    const test = compileSegment(segment);
    tokens.push({ star: false, test: (name) => testName(test, name) });
  });
  return tokens;
}

function fold(text: string): string {
  return FOLD_CASE ? text.toLowerCase() : text;
}

function parseRule(raw: string, index: number): Rule | undefined {
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line === '' || line.startsWith('#')) return undefined;
  // Trailing spaces go unless escaped with a backslash.
  line = line.replace(/(?<!\\)[ \t]+$/, '');
  const negated = line.startsWith('!');
  if (negated) line = line.slice(1);
  if (line.startsWith('\\#') || line.startsWith('\\!')) line = line.slice(1);
  const directoryOnly = line.endsWith('/') && !line.endsWith('\\/');
  if (directoryOnly) line = line.replace(/\/+$/, '');
  if (line === '') return undefined;
  line = fold(line);
  if (!line.includes('/')) return { index, negated, directoryOnly, name: compileSegment(line) };
  const pattern = line.replace(/^\/+/, '');
  const needs = pattern.split('/').filter((segment) => segment !== '' && !/[*?[\\]/.test(segment));
  return { index, negated, directoryOnly, path: compilePath(pattern), needs };
}

/** Parsed .gitignore texts by content: the same text gives the same object, so decisions made under it can be kept. */
const parsedTexts = new Map<string, IgnoreFile>();
const MAX_PARSED_TEXTS = 2000;

/** The rules of one .gitignore text (the same object for the same text while it is remembered). */
export function ignoreFileOf(text: string): IgnoreFile {
  let parsed = parsedTexts.get(text);
  if (!parsed) {
    if (parsedTexts.size >= MAX_PARSED_TEXTS) parsedTexts.clear();
    parsed = parseIgnoreFile(text);
    parsedTexts.set(text, parsed);
  }
  return parsed;
}

/** The rules of one .gitignore text, in order (at most MAX_RULES). */
export function parseIgnoreFile(text: string): IgnoreFile {
  const rules: Rule[] = [];
  for (const line of text.split('\n')) {
    const rule = parseRule(line, rules.length);
    if (rule) rules.push(rule);
    if (rules.length >= MAX_RULES) break;
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
  rulesOf(base: string, ignoreFilePath: (() => string | Buffer) | undefined): IgnoreFile | null {
    const known = this.files.get(base);
    if (known !== undefined) return known;
    const data = ignoreFilePath ? readSmallRegularFile(ignoreFilePath(), MAX_IGNORE_FILE_BYTES)?.data : undefined;
    const parsed = data === undefined ? null : ignoreFileOf(data.toString('utf8'));
    const kept = parsed && !parsed.empty ? parsed : null;
    this.files.set(base, kept);
    return kept;
  }

  /** True when the entry `key` (named `name`, a folder or not) is ignored by the levels above it, deepest first. */
  static ignored(levels: readonly IgnoreLevel[], key: string, name: string, isDirectory: boolean): boolean {
    if (levels.length === 0) return false;
    const folded = fold(name);
    const path = FOLD_CASE ? key.toLowerCase() : key;
    for (let at = levels.length - 1; at >= 0; at--) {
      const level = levels[at] as IgnoreLevel;
      const decision = level.file.decide(path.slice(level.base.length), folded, isDirectory);
      if (decision !== undefined) return decision;
    }
    return false;
  }
}
