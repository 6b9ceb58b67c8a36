// search_text against hostile patterns and big workspaces: bounded time, cancel, explicit limits, .gitignore and excludes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchTextTool } from '../../src/core/tools/fileTools';
import { IgnoreRules, parseGitignore } from '../../src/core/tools/ignoreRules';
import { nodeWorkspaceAccess } from '../support/nodeWorkspaceAccess';
import type { SearchCandidate } from '../../src/core/tools/textSearch';
import { SEARCH_LIMITS, searchCandidates } from '../../src/core/tools/textSearch';
import { recordingAccess, tempWorkspace, toolContext, type TempWorkspace } from '../support/agentWorkspace';

let ws: TempWorkspace;

beforeEach(() => {
  ws = tempWorkspace();
});

afterEach(() => ws.cleanup());

/** Generous against the 2 s per-file limit: the same searches take minutes (or centuries) on the main thread. */
const BOUND_MS = 5_000;

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await run();
  return { value, ms: Date.now() - started };
}

describe('search_text against catastrophic regexes', () => {
  it('search-text-catastrophic-regex-returns-in-bounded-time', async () => {
    ws.write('a.txt', `${'a'.repeat(60)}b\n`);
    ws.write('call.ts', `call(${Array.from({ length: 40 }, (_, i) => `arg${i}`).join(', ')});x\n`);
    const { access } = recordingAccess(ws.root);
    for (const [pattern, file] of [['(a+)+$', 'a.txt'], ['(\\w+\\s?,?\\s?)+\\);$', 'call.ts']] as const) {
      const { value, ms } = await timed(() => searchTextTool.execute({ pattern, isRegex: true, glob: file }, toolContext(access)));
      expect(ms).toBeLessThan(BOUND_MS);
      expect(value.isError).toBe(true);
      expect(value.text).toContain(`The regular expression ${JSON.stringify(pattern)} is too slow`);
      expect(value.text).toContain(file);
    }
  });

  it('search-text-cancel-stops-a-catastrophic-regex-at-once', async () => {
    ws.write('a.txt', `${'a'.repeat(60)}b\n`);
    const { access } = recordingAccess(ws.root);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const context = toolContext(access, { signal: controller.signal });
    const { value, ms } = await timed(() => searchTextTool.execute({ pattern: '(a+)+$', isRegex: true }, context));
    expect(ms).toBeLessThan(1_500);
    expect(value).toEqual({ text: '[cancelled by the user]', isError: true });
  });

  it('search-text-keeps-the-event-loop-free-while-a-regex-runs', async () => {
    ws.write('a.txt', `${'a'.repeat(60)}b\n`);
    const { access } = recordingAccess(ws.root);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    await searchTextTool.execute({ pattern: '(a+)+$', isRegex: true }, toolContext(access));
    clearInterval(ticker);
    // About 100 ticks in 2 s; a regex on the main thread would allow none.
    expect(ticks).toBeGreaterThan(20);
  });

  it('search-text-still-supports-full-javascript-regexes', async () => {
    ws.write('src/a.ts', 'const foo = foo;\nlet bar = 1;\nconst price = $42;\n');
    const { access } = recordingAccess(ws.root);
    const backreference = await searchTextTool.execute({ pattern: '(\\w+) = \\1', isRegex: true }, toolContext(access));
    expect(backreference.text).toBe('src/a.ts:1: const foo = foo;');
    const lookbehind = await searchTextTool.execute({ pattern: '(?<=\\$)\\d+', isRegex: true }, toolContext(access));
    expect(lookbehind.text).toBe('src/a.ts:3: const price = $42;');
    const literal = await searchTextTool.execute({ pattern: '(a+)+$' }, toolContext(access));
    expect(literal.text).toBe('No matches for "(a+)+$".');
  });
});

describe('search_text scope', () => {
  it('search-text-skips-gitignored-and-excluded-files', async () => {
    ws.write('.gitignore', '# build output\ndist/\n*.log\n/top.txt\n!keep.log\n');
    for (const file of ['dist/out.js', 'app.log', 'keep.log', 'top.txt', 'src/top.txt', 'src/main.ts', 'gen/x.ts']) ws.write(file, 'needle\n');
    const access = nodeWorkspaceAccess([ws.root], { trusted: true, confirm: () => Promise.resolve(true), excludes: ['gen/**'] });
    const result = await searchTextTool.execute({ pattern: 'needle' }, toolContext(access));
    expect(result.text.split('\n')).toEqual(['keep.log:1: needle', 'src/main.ts:1: needle', 'src/top.txt:1: needle']);
  });

  it('search-text-gitignore-rules-follow-git', () => {
    const rules = new IgnoreRules(parseGitignore('*.o\n/build\ndocs/*.md\n!docs/keep.md\ncache/\n\\#hash\n  \n# comment\n'));
    const ignored = (path: string): boolean => rules.ignoresFile(path);
    expect(['a.o', 'deep/b.o', 'build/x', 'docs/a.md', 'cache/x', 'a/cache/y', '#hash'].filter(ignored)).toHaveLength(7);
    expect(['src/build/x', 'docs/keep.md', 'docs/sub/a.md', 'cache', 'comment', 'a.oo'].filter(ignored)).toEqual([]);
  });

  it('search-text-says-when-it-stops-at-the-file-limit', async () => {
    const files: SearchCandidate[] = Array.from({ length: 30 }, (_, i) => ({ relative: `f${i}.txt`, read: () => Promise.resolve('nothing here\n') }));
    const result = await searchCandidates(files, { pattern: 'x', regex: /x/, limit: 10 }, { ...SEARCH_LIMITS, maxFiles: 12 });
    expect(result.matches).toEqual([]);
    expect(result.notes).toEqual(['search stopped after 12 files; narrow it with glob to search the rest']);
    const exact = await searchCandidates(files.slice(0, 12), { pattern: 'x', regex: /x/, limit: 10 }, { ...SEARCH_LIMITS, maxFiles: 12 });
    expect(exact.notes).toEqual([]);
  });

  it('search-text-shows-the-stop-note-to-the-model', async () => {
    ws.write('a.txt', 'needle\n');
    const { access } = recordingAccess(ws.root);
    const original = access.searchText.bind(access);
    access.searchText = async (pattern, options) => ({ ...(await original(pattern, options)), notes: ['search stopped after 10000 files; narrow it with glob to search the rest'] });
    const result = await searchTextTool.execute({ pattern: 'needle' }, toolContext(access));
    expect(result.text).toBe('a.txt:1: needle\n[search stopped after 10000 files; narrow it with glob to search the rest]');
  });
});
