// What a text search skips: the root .gitignore of each workspace folder and configured exclude globs.
import * as nodePath from 'node:path';
import type { GlobMatcher } from './globPattern';
import { compileGlob } from './globPattern';
import { readRegularFile } from './safeFileIo';

interface GitignoreRule {
  negated: boolean;
  directoryOnly: boolean;
  matcher: GlobMatcher;
}

/** Far more than any real .gitignore; a larger one is not used. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;
const MAX_RULES = 5000;

function parseRule(raw: string): GitignoreRule | undefined {
  let line = raw.replace(/\r$/, '').replace(/(?<!\\)\s+$/, '');
  if (line === '' || line.startsWith('#')) return undefined;
  const negated = line.startsWith('!');
  if (negated) line = line.slice(1);
  if (line.startsWith('\\#') || line.startsWith('\\!')) line = line.slice(1);
  const directoryOnly = line.endsWith('/');
  if (directoryOnly) line = line.replace(/\/+$/, '');
  if (line === '') return undefined;
  // A slash at the start or in the middle anchors the pattern to the folder holding the .gitignore.
  const anchored = line.includes('/');
  try {
    return { negated, directoryOnly, matcher: compileGlob(line.replace(/^\/+/, ''), { anyDepth: !anchored }) };
  } catch {
    return undefined;
  }
}

/** The rules of one .gitignore text, in order (the last matching rule decides). */
export function parseGitignore(text: string): GitignoreRule[] {
  const rules: GitignoreRule[] = [];
  for (const line of text.split('\n')) {
    const rule = parseRule(line);
    if (rule !== undefined) rules.push(rule);
    if (rules.length >= MAX_RULES) break;
  }
  return rules;
}

export class IgnoreRules {
  private readonly excludes: GlobMatcher[];

  constructor(
    private readonly gitignore: readonly GitignoreRule[],
    excludes: readonly string[] = [],
  ) {
    this.excludes = excludes.flatMap((glob) => {
      try {
        return [compileGlob(glob, { anyDepth: false })];
      } catch {
        return [];
      }
    });
  }

  /** True when this file or folder itself is ignored (its parent folders are not checked: walkers prune them). */
  ignoresEntry(relative: string, isDirectory: boolean): boolean {
    if (this.excludes.some((matcher) => matcher.test(relative))) return true;
    let ignored = false;
    for (const rule of this.gitignore) {
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.matcher.test(relative)) ignored = !rule.negated;
    }
    return ignored;
  }

  /** True when the file or any folder above it is ignored, for flat lists of files. */
  ignoresFile(relative: string): boolean {
    const parts = relative.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      if (this.ignoresEntry(parts.slice(0, depth).join('/'), true)) return true;
    }
    return this.ignoresEntry(relative, false);
  }
}

/** The rules for one workspace folder: its root .gitignore (if readable) plus the given exclude globs. */
export async function loadIgnoreRules(root: string, excludes: readonly string[] = []): Promise<IgnoreRules> {
  const text = await readRegularFile(nodePath.join(root, '.gitignore'), '.gitignore', MAX_GITIGNORE_BYTES)
    .then((data) => data.toString('utf8'))
    .catch(() => '');
  return new IgnoreRules(parseGitignore(text), excludes);
}
