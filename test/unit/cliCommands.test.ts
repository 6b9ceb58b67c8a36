// The command-line tool: import, inspect, context, verify, and one-line errors for bad input.
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/core/cli/runCli';
import type { CliDeps } from '../../src/core/cli/cliDeps';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { tempDir } from '../support/sessionTempDir';
import { validateChatMessages } from '../support/validateChatMessages';
import { PI_FIXTURES_DIR } from '../support/fixturePaths';

const FIXTURES = PI_FIXTURES_DIR;
let dir: string;
let cleanup: () => void;
let session: string;

/** Injected counter: proves `context` reports what the injected counter says. */
const stubCounter = { encoding: 'stub', exact: false, countMessages: (messages: readonly ChatMessage[]) => messages.length * 1000 };

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const deps: CliDeps = { io: nodeFileIo, out: (text) => out.push(text), err: (text) => err.push(text), createCounter: async () => Promise.resolve(stubCounter) };
  const code = await runCli(argv, deps);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  session = nodePath.join(dir, 'bc.jsonl');
  expect((await run('import', '--from', 'pi', nodePath.join(FIXTURES, 'before-compaction.jsonl'), '--out', session)).code).toBe(0);
});
afterAll(() => cleanup());

describe('cli', () => {
  it('inspect --json reports counts, leaf, compactions and quarantine', async () => {
    const { code, out } = await run('inspect', session, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out) as Record<string, unknown>;
    // The fixture's 3 shell commands the user ran are imported as a call and its result each.
    expect(report).toMatchObject({ entries: 1005, messages: { user: 55, assistant: 487, tool: 451 }, quarantined: 0 });
    expect(report.compactions).toEqual([
      expect.objectContaining({ tokensBefore: 175004, tokensAfter: 0, firstKeptEntryId: expect.any(String) as string }),
      expect.objectContaining({ tokensBefore: 185014, tokensAfter: 0 }),
    ]);
    expect(typeof report.leafId).toBe('string');
    const text = await run('inspect', session);
    expect(text.out).toContain('entries: 1005');
  });

  it('context --json prints valid messages and the injected token count; --leaf and --system work', async () => {
    const { code, out } = await run('context', session, '--json', '--system', 'be brief');
    expect(code).toBe(0);
    const { messages, tokens } = JSON.parse(out) as { messages: ChatMessage[]; tokens: number };
    expect(messages[0]).toEqual({ role: 'system', content: 'be brief' });
    expect(validateChatMessages(messages)).toEqual([]);
    expect(tokens).toBe(messages.length * 1000);
    const report = JSON.parse((await run('inspect', session, '--json')).out) as { compactions: Array<{ firstKeptEntryId: string }> };
    const early = report.compactions[0]?.firstKeptEntryId ?? '';
    const atLeaf = JSON.parse((await run('context', session, '--json', '--leaf', early)).out) as { messages: ChatMessage[] };
    expect(validateChatMessages(atLeaf.messages)).toEqual([]);
    expect(atLeaf.messages.length).toBeLessThan(messages.length + 400);
    expect((await run('context', session, '--leaf', 'nope')).err).toBe(`error: no entry nope in ${session}`);
  });

  it('verify reports damage and missing blobs but exits 0 while the file is readable', async () => {
    const copy = nodePath.join(dir, 'copy', 'bc.jsonl');
    await run('import', '--from', 'pi', nodePath.join(FIXTURES, 'before-compaction.jsonl'), '--out', copy);
    appendFileSync(copy, 'garbage line\n{"type":"user","id":"x","parentId":"missing","timestamp":"t","text":"hi"}\n{"torn');
    const blobs = nodePath.join(dir, 'copy', 'blobs');
    rmSync(blobs, { recursive: true });
    const { code, out } = await run('verify', copy, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out) as Record<string, unknown>;
    expect(report).toMatchObject({ ok: false, validEntries: 1006, tornTail: { line: 1009 }, corruptLines: [{ line: 1007, reason: 'not valid JSON' }], danglingParents: [{ id: 'x', parentId: 'missing' }] });
    // 10 capped tool outputs and the 51 KB output of the user's `find .`.
    expect((report.missingBlobs as unknown[]).length).toBe(11);
    expect((await run('verify', session)).out).toMatch(/^OK: 1005 valid entries/);
  });

  it('gives one-line errors and non-zero exits for bad input', async () => {
    const notJson = nodePath.join(dir, 'bad.jsonl');
    writeFileSync(notJson, 'hello\n');
    const future = nodePath.join(dir, 'future.jsonl');
    writeFileSync(future, '{"type":"session","version":7,"id":"f","timestamp":"t"}\n');
    const cases: Array<[string[], RegExp]> = [
      [['inspect', nodePath.join(dir, 'missing.jsonl')], /^error: session file not found: /],
      [['context', notJson, '--json'], /^error: .* is not a session log: the first line is not JSON$/],
      [['verify', future], /^error: session schema version 7 is newer than this version supports \(1\)/],
      [['import', '--from', 'pi', notJson, '--out', nodePath.join(dir, 'x.jsonl')], /^error: not a pi session file/],
      [['import', '--from', 'pi', nodePath.join(FIXTURES, 'large-session.jsonl'), '--out', session], /^error: output file already exists/],
      [['import', '--from', 'other', 'a', '--out', 'b'], /^error: usage: import/],
      [['frobnicate'], /^error: unknown command "frobnicate"/],
    ];
    for (const [argv, pattern] of cases) {
      const { code, err } = await run(...argv);
      expect(code).not.toBe(0);
      expect(err.split('\n')[0]).toMatch(pattern);
    }
  });

  it('works as a bundled node script', () => {
    const bundle = nodePath.join(dir, 'cli.js');
    buildSync({ entryPoints: ['src/core/cli/main.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: bundle, logLevel: 'error' });
    const ok = spawnSync(process.execPath, [bundle, 'inspect', session, '--json'], { encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect((JSON.parse(ok.stdout) as { entries: number }).entries).toBe(1005);
    const bad = spawnSync(process.execPath, [bundle, 'inspect', nodePath.join(dir, 'missing.jsonl')], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });
});
