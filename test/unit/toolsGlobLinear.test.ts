// find_files globs match in linear time (no regex backtracking) and keep their meaning: **, *, ?, braces, classes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findFilesTool } from '../../src/core/tools/fileTools';
import { compileGlob } from '../../src/core/tools/globPattern';
import { recordingAccess, tempWorkspace, toolContext, type TempWorkspace } from '../support/agentWorkspace';

let ws: TempWorkspace;

beforeEach(() => {
  ws = tempWorkspace();
});

afterEach(() => ws.cleanup());

describe('glob matching cost', () => {
  it('find-files-glob-with-many-stars-matches-in-linear-time', () => {
    // As a RegExp, 9 stars against 40 characters took 32 s and each further star multiplies it.
    const started = Date.now();
    for (const stars of [9, 20, 60]) {
      const matcher = compileGlob(`${'*a'.repeat(stars)}*b`);
      expect(matcher.test('a'.repeat(400))).toBe(false);
      expect(matcher.test(`${'a'.repeat(400)}b`)).toBe(true);
      expect(compileGlob(`**/${'*a'.repeat(stars)}*b/**/x`).test(`${'a/'.repeat(50)}${'a'.repeat(100)}/y/x`)).toBe(false);
    }
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('find-files-tool-with-a-pathological-glob-returns-quickly', async () => {
    for (let i = 0; i < 30; i++) ws.write(`d${i % 3}/${'a'.repeat(60)}${i}.txt`, 'x');
    const { access } = recordingAccess(ws.root);
    const started = Date.now();
    const result = await findFilesTool.execute({ glob: `${'*a'.repeat(12)}*b` }, toolContext(access));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.text).toBe(`No files match ${JSON.stringify(`${'*a'.repeat(12)}*b`)}.`);
  });

  it('find-files-refuses-a-glob-whose-braces-explode', async () => {
    const { access } = recordingAccess(ws.root);
    const result = await findFilesTool.execute({ glob: '{a,b}'.repeat(20) }, toolContext(access));
    expect(result.isError).toBe(true);
    expect(result.text).toContain('expands to more than 256 alternatives');
  });
});

describe('glob meaning', () => {
  const cases: Array<[string, string, boolean]> = [
    ['src/**/*.ts', 'src/a/b/c.ts', true],
    ['src/**/*.ts', 'src/c.ts', true],
    ['src/**/*.ts', 'lib/src/c.ts', false],
    ['src/*.ts', 'src/a/c.ts', false],
    ['*.ts', 'deep/down/x.ts', true],
    ['*.ts', 'x.tsx', false],
    ['**/test*.py', 'a/test_x.py', true],
    ['src/**', 'src/a/b', true],
    ['*.{ts,md}', 'x/README.md', true],
    ['{src,test}/**/*.{ts,js}', 'test/u/a.js', true],
    ['{src,test}/**/*.{ts,js}', 'bench/a.js', false],
    ['a{b,{c,d}}e', 'ade', true],
    ['file[0-9].txt', 'file7.txt', true],
    ['file[!0-9].txt', 'file7.txt', false],
    ['file[!0-9].txt', 'filex.txt', true],
    ['a.b', 'axb', false],
    ['?.md', 'a.md', true],
    ['?.md', 'ab.md', false],
    ['./src/*.ts', 'src/a.ts', true],
    ['src\\*.ts', 'src/a.ts', true],
    ['(a+)+$', '(a+)+$', true],
    ['[unclosed', '[unclosed', true],
  ];
  it.each(cases)('glob %s against %s is %s', (glob, path, expected) => {
    expect(compileGlob(glob).test(path)).toBe(expected);
  });
});
