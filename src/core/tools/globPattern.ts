// Globs for workspace-relative paths: **, *, ?, {a,b} and [...], matched in linear time (no RegExp, no backtracking).
import type { WildcardToken } from './wildcardMatch';
import { wildcardMatch } from './wildcardMatch';
import { WorkspaceRefusal } from './workspaceAccess';

/** Longest glob accepted, and most alternatives its braces may expand to: both bound the work per path. */
const MAX_GLOB_CHARS = 2000;
const MAX_ALTERNATIVES = 256;

export interface GlobMatcher {
  /** True when the workspace-relative path (forward slashes) matches. */
  test(path: string): boolean;
}

export interface GlobOptions {
  /** Match the pattern at any depth; by default only when it has no '/' (like VS Code's search). */
  anyDepth?: boolean;
}

type CharToken = WildcardToken<string>;
type SegmentToken = WildcardToken<readonly string[]>;

function refuse(glob: string, why: string): never {
  const shown = glob.length > 120 ? `${glob.slice(0, 120)}...` : glob;
  throw new WorkspaceRefusal(`Glob ${JSON.stringify(shown)} ${why}; use a simpler pattern.`);
}

/** The index of the '}' closing the '{' at `open`, or -1. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Splits a brace body on its top-level commas. */
function topLevelParts(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '{') depth++;
    else if (body[i] === '}') depth--;
    else if (body[i] === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

/** Expands {a,b} groups (nested too) one group per round, refusing more than MAX_ALTERNATIVES results. */
function expandBraces(glob: string): string[] {
  let pending = [glob];
  const done: string[] = [];
  while (pending.length > 0) {
    const next: string[] = [];
    for (const text of pending) {
      const open = text.indexOf('{');
      const close = open === -1 ? -1 : closingBrace(text, open);
      if (close === -1) {
        done.push(text);
        continue;
      }
      for (const part of topLevelParts(text.slice(open + 1, close))) next.push(text.slice(0, open) + part + text.slice(close + 1));
      if (next.length + done.length > MAX_ALTERNATIVES) refuse(glob, `expands to more than ${MAX_ALTERNATIVES} alternatives`);
    }
    pending = next;
  }
  return done;
}

/** A [...] class (git's wildmatch and globs alike): `!` or `^` first negates, `a-z` is a range. */
export function classTest(body: string): (char: string) => boolean {
  const negated = body.startsWith('!') || body.startsWith('^');
  const chars = Array.from(negated ? body.slice(1) : body);
  return (char) => {
    let found = false;
    for (let i = 0; i < chars.length && !found; i++) {
      const low = chars[i] ?? '';
      const high = chars[i + 1] === '-' && i + 2 < chars.length ? (chars[i + 2] ?? '') : undefined;
      if (high !== undefined) {
        found = char >= low && char <= high;
        i += 2;
      } else {
        found = char === low;
      }
    }
    return found !== negated;
  };
}

/** One path segment's pattern as tokens over its characters (code points). */
function segmentTokens(segment: string): CharToken[] {
  const chars = Array.from(segment);
  const tokens: CharToken[] = [];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] ?? '';
    if (char === '*') {
      if (tokens.at(-1)?.star !== true) tokens.push({ star: true });
    } else if (char === '?') {
      tokens.push({ star: false, test: () => true });
    } else if (char === '[' && chars.indexOf(']', i + 2) !== -1) {
      const end = chars.indexOf(']', i + 2);
      tokens.push({ star: false, test: classTest(chars.slice(i + 1, end).join('')) });
      i = end;
    } else {
      tokens.push({ star: false, test: (other) => other === char });
    }
  }
  return tokens;
}

/** One alternative (no braces left) as tokens over path segments; `**` is a star over whole segments. */
function alternativeTokens(alternative: string, anyDepth: boolean): SegmentToken[] {
  const tokens: SegmentToken[] = anyDepth ? [{ star: true }] : [];
  for (const segment of alternative.split('/')) {
    if (segment === '') continue;
    if (segment === '**') {
      if (tokens.at(-1)?.star !== true) tokens.push({ star: true });
      continue;
    }
    const chars = segmentTokens(segment);
    tokens.push({ star: false, test: (name) => wildcardMatch(chars, name) });
  }
  return tokens;
}

/** Compiles a glob; a pattern without '/' matches the file name at any depth unless options say otherwise. */
export function compileGlob(glob: string, options: GlobOptions = {}): GlobMatcher {
  const pattern = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  if (pattern.length > MAX_GLOB_CHARS) refuse(pattern, `is longer than ${MAX_GLOB_CHARS} characters`);
  const anyDepth = options.anyDepth ?? !pattern.includes('/');
  const alternatives = expandBraces(pattern).map((alternative) => alternativeTokens(alternative, anyDepth));
  return {
    test(path) {
      const segments = path
        .split('/')
        .filter((segment) => segment !== '')
        .map((segment) => Array.from(segment));
      return alternatives.some((tokens) => wildcardMatch(tokens, segments));
    },
  };
}

/** Folders never walked by the node implementation: huge and rarely what the model is after. */
export const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', '.hg', '.svn']);
