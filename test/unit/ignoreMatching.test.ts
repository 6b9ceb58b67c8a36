// .gitignore matching: linear in the name whatever the patterns (steps counted, never timed), the same answers as a plain backtracking matcher and as git, and a snapshot that pauses within a folder.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeFolderSnapshot, type SnapshotContext } from '../../src/core/checkpoints/folderSnapshot';
import { FolderRules } from '../../src/core/checkpoints/ignoreFiles';
import { PathPattern, SegmentPattern } from '../../src/core/checkpoints/ignorePatterns';
import { codePointsOf, MatchBudget, OverBudget, STEPS_PER_ENTRY } from '../../src/core/checkpoints/matchSteps';
import { StatIndex } from '../../src/core/checkpoints/statIndex';
import { StoreBudget } from '../../src/core/checkpoints/storeBudget';
import { SLICE_LIMITS, type SliceWork } from '../../src/core/checkpoints/walkSlices';
import { BlobStore } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { SeededRandom } from '../faults/seededRandom';
import { gitAvailable, gitListing } from '../support/gitOracle';

/** The most one item adds past a slice's limit: one entry's matching budget, and what one spend may add at once (a 4 KB path). */
const ONE_ITEM_STEPS = STEPS_PER_ENTRY + 8192;

/** git's wildmatch for one segment, by plain backtracking (exponential in the worst case: the yardstick, not the product). */
function referenceSegment(pattern: string, name: string): boolean {
  const p = Array.from(pattern);
  const n = Array.from(name);
  const memo = new Map<string, boolean>();
  const at = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === p.length) result = j === n.length;
    else if (p[i] === '*') result = at(i + 1, j) || (j < n.length && at(i, j + 1));
    else if (j === n.length) result = false;
    else if (p[i] === '\\' && i + 1 < p.length) result = p[i + 1] === n[j] && at(i + 2, j + 1);
    else if (p[i] === '?') result = at(i + 1, j + 1);
    else if (p[i] === '[' && p.indexOf(']', i + 2) !== -1) {
      const end = p.indexOf(']', i + 2);
      let body = p.slice(i + 1, end);
      const negated = body[0] === '!' || body[0] === '^';
      if (negated) body = body.slice(1);
      let found = false;
      for (let k = 0; k < body.length; k++) {
        const low = (body[k] as string).codePointAt(0) as number;
        if (body[k + 1] === '-' && k + 2 < body.length) {
          const high = (body[k + 2] as string).codePointAt(0) as number;
          const code = (n[j] as string).codePointAt(0) as number;
          found ||= code >= low && code <= high;
          k += 2;
        } else found ||= body[k] === n[j];
      }
      result = found !== negated && at(end + 1, j + 1);
    } else result = p[i] === n[j] && at(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

function randomText(random: SeededRandom, alphabet: readonly string[], length: number): string {
  return Array.from({ length }, () => alphabet[random.int(0, alphabet.length - 1)]).join('');
}

function segmentMatches(pattern: string, name: string, budget = new MatchBudget(Number.MAX_SAFE_INTEGER)): boolean {
  return SegmentPattern.compile(pattern).matches(codePointsOf(name), budget);
}

describe('ignore pattern matching', () => {
  it('gives the answers of a backtracking matcher on 20,000 random patterns and names', () => {
    const random = new SeededRandom(40);
    const pieces = ['a', 'b', 'ab', '*', '**', '?', '[ab]', '[!a]', '[a-c]', '\\*', 'é', '😀'];
    for (let round = 0; round < 20_000; round++) {
      const pattern = randomText(random, pieces, random.int(0, 7));
      const name = randomText(random, ['a', 'b', 'c', '*', 'é', '😀'], random.int(0, 9));
      expect(segmentMatches(pattern, name), `${pattern} against ${name}`).toBe(referenceSegment(pattern, name));
    }
  });

  it('matches paths segment by segment: ** spans any number of folders, a trailing /** one at least', () => {
    const test = (pattern: string, path: string): boolean => PathPattern.compile(pattern).matches(path.split('/').map(codePointsOf), new MatchBudget(Number.MAX_SAFE_INTEGER));
    expect(test('a/**/b', 'a/b')).toBe(true);
    expect(test('a/**/b', 'a/x/y/b')).toBe(true);
    expect(test('a/**/b', 'a/x/y/c')).toBe(false);
    expect(test('**/gen', 'x/y/gen')).toBe(true);
    expect(test('docs/**', 'docs')).toBe(false);
    expect(test('docs/**', 'docs/a/b')).toBe(true);
    expect(test('docs/*/draft-*', 'docs/a/draft-1')).toBe(true);
    expect(test('docs/*/draft-*', 'docs/a/b/draft-1')).toBe(false);
    expect(test('**/a/**/b/**/c', 'x/a/y/b/z/c')).toBe(true);
    expect(test('**/a/**/b/**/c', 'x/b/y/a/z/c')).toBe(false);
  });

  it('takes steps linear in the name for the pattern that froze the window (*aaaa…(150)…b* against a 241-character name)', () => {
    const pattern = `*${'a'.repeat(150)}b*`;
    const name = 'a'.repeat(241);
    const budget = new MatchBudget(Number.MAX_SAFE_INTEGER);
    expect(segmentMatches(pattern, name, budget)).toBe(false);
    // A backtracking matcher takes about 241 × 151 = 36,000 steps here; one that finds the run left to right, 2 × 241.
    expect(budget.total).toBeLessThanOrEqual(3 * (name.length + pattern.length));
    const many = new MatchBudget(Number.MAX_SAFE_INTEGER);
    expect(segmentMatches(`${'*a'.repeat(120)}*b`, name, many)).toBe(false);
    expect(many.total).toBeLessThanOrEqual(3 * (name.length + 240));
  });

  it('stops one entry at its budget: the entry is then not ignored (snapshotted), and counted', async () => {
    const { parseIgnoreFile } = await import('../../src/core/checkpoints/ignoreFiles');
    // Blocks with `?` are tried at each position: a long one costs length × positions, which the budget cuts short.
    const file = await parseIgnoreFile(Array.from({ length: 200 }, (_, k) => `*${'?a'.repeat(60)}${k}*`).join('\n'));
    const budget = new MatchBudget();
    expect(() => {
      budget.begin();
      budget.spend(STEPS_PER_ENTRY + 1);
    }).toThrow(OverBudget);
    const name = 'a'.repeat(240);
    expect(FolderRules.ignored([{ base: '', file }], name, name, false, budget)).toBe(false);
    expect(budget.exceeded).toBe(1);
    // A name the same rules ignore cheaply is still ignored.
    const ignoredName = `${'xa'.repeat(60)}7`;
    expect(FolderRules.ignored([{ base: '', file }], ignoredName, ignoredName, false, budget)).toBe(true);
  });
});

describe('the snapshot walk under a hostile .gitignore', () => {
  let base: string;
  let root: string;
  let slices: SliceWork[];
  let context: SnapshotContext;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'ignore-matching-')));
    root = nodePath.join(base, 'ws');
    mkdirSync(root);
    const store = new BlobStore(nodePath.join(base, 'blobs'), nodeFileIo);
    slices = [];
    context = {
      store,
      maxBytes: 1024 * 1024,
      caps: { maxFiles: 50_000, maxBytes: 100 * 1024 * 1024 },
      budget: new StoreBudget(store.dir, () => Number.POSITIVE_INFINITY),
      pause: (work) => {
        slices.push({ ...work });
        return new Promise((resolve) => setImmediate(resolve));
      },
    };
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  /** Every slice's work stays within its limits, passed by one item at most. */
  function expectSlicesBounded(): void {
    const most = (kind: keyof SliceWork): number => Math.max(0, ...slices.map((slice) => slice[kind]));
    expect(most('matchSteps')).toBeLessThanOrEqual(SLICE_LIMITS.matchSteps + ONE_ITEM_STEPS);
    expect(most('entries')).toBeLessThanOrEqual(SLICE_LIMITS.entries + 1);
    expect(most('bytes')).toBeLessThanOrEqual(SLICE_LIMITS.bytes + 1024 * 1024);
  }

  it('hostile-gitignore-stays-under-a-frame', async () => {
    // Within the caps (1 MB, 5,000 rules): it blocked the extension host for 17 s in one pass over the folder.
    const rules = Array.from({ length: 5000 }, (_, k) => `*${'a'.repeat(150)}b${k}*`).join('\n');
    writeFileSync(nodePath.join(root, '.gitignore'), rules);
    const names = Array.from({ length: 40 }, (_, k) => `${'a'.repeat(238)}${String(k).padStart(3, '0')}`);
    for (const name of names) writeFileSync(nodePath.join(root, name), name);
    const snapshot = await takeFolderSnapshot(root, new StatIndex(), new FolderRules(), context);
    // One folder, and still many pauses: the walk pauses within it (while reading its rules and judging its entries).
    expect(slices.length).toBeGreaterThan(10);
    expectSlicesBounded();
    // No rule matches them: every file is snapshotted (judged within the budget or, past it, not ignored).
    expect([...snapshot.files.keys()].sort()).toEqual(['.gitignore', ...names].sort());
    const work = slices.reduce((sum, slice) => sum + slice.matchSteps, 0);
    // All of it bounded: one entry's budget per file, and reading the rules (counted as 8 steps a character).
    expect(work).toBeLessThanOrEqual(41 * ONE_ITEM_STEPS + 8 * (rules.length + 5001));
  });

  it('a folder of 3,000 files is walked in slices of at most 256 entries', async () => {
    for (let k = 0; k < 3000; k++) writeFileSync(nodePath.join(root, `f${k}.txt`), '');
    writeFileSync(nodePath.join(root, '.gitignore'), '*.log\n');
    const snapshot = await takeFolderSnapshot(root, new StatIndex(), new FolderRules(), context);
    expect(snapshot.files.size).toBe(3001);
    expect(slices.length).toBeGreaterThanOrEqual(3 * Math.floor(3000 / (SLICE_LIMITS.entries + 1)));
    expectSlicesBounded();
  });
});

describe('ignore matching against git', () => {
  it.runIf(gitAvailable())('random patterns judge random names as git does (one folder per pattern)', async () => {
    const dir = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'ignore-oracle-')));
    try {
      const random = new SeededRandom(7);
      const names = Array.from({ length: 14 }, () => randomText(random, ['a', 'b', 'c', '.'], random.int(1, 6))).filter((name) => name !== '.' && name !== '..' && name !== '.git');
      for (let k = 0; k < 60; k++) {
        const folder = nodePath.join(dir, `p${k}`);
        mkdirSync(folder);
        // Two rules: the last that matches decides (a `!` one re-includes), `/` at the end for folders only.
        const rule = (): string => `${random.chance(0.3) ? '!' : ''}${randomText(random, ['a', 'b', '*', '?', '[ab]', '[!a]', '.', '**/', '/', '\\.'], random.int(1, 5))}${random.chance(0.2) ? '/' : ''}`;
        writeFileSync(nodePath.join(folder, '.gitignore'), `${rule()}\n${rule()}\n`);
        for (const name of new Set(names)) {
          mkdirSync(nodePath.join(folder, 'd'), { recursive: true });
          writeFileSync(nodePath.join(folder, name), 'x');
          writeFileSync(nodePath.join(folder, 'd', name), 'x');
        }
      }
      const listed = gitListing(dir);
      const store = new BlobStore(nodePath.join(tmpdir(), `ignore-oracle-blobs-${process.pid}`), nodeFileIo);
      const snapshot = await takeFolderSnapshot(dir, new StatIndex(), new FolderRules(), { store, maxBytes: 1024, caps: { maxFiles: 50_000, maxBytes: 1e9 }, budget: new StoreBudget(store.dir, () => Number.POSITIVE_INFINITY) });
      rmSync(store.dir, { recursive: true, force: true });
      expect([...snapshot.files.keys()].sort()).toEqual(listed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
