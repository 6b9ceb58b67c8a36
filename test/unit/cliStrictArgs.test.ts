// The CLI's argument parsing (node:util parseArgs, strict): unknown flags are errors, no flag takes the next one as its value.
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/core/cli/cliArgs';
import type { CliDeps } from '../../src/core/cli/cliDeps';
import { runCli } from '../../src/core/cli/runCli';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { SessionLog } from '../../src/core/session/sessionLog';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
let session: string;
let firstId: string;

const counter = { encoding: 'stub', exact: false, countMessages: (messages: readonly ChatMessage[]) => messages.length };

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const deps: CliDeps = { io: nodeFileIo, out: (text) => out.push(text), err: (text) => err.push(text), createCounter: () => Promise.resolve(counter) };
  const code = await runCli(argv, deps);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  session = nodePath.join(dir, 'small.jsonl');
  const log = await SessionLog.create(session, {}, { lock: false });
  firstId = (await log.append({ type: 'user', text: 'first' })).id;
  await log.append({ type: 'assistant', text: 'answer', toolCalls: [], stopReason: 'stop' });
  await log.close();
});
afterAll(() => cleanup());

describe('cli arguments', () => {
  it('unknown-cli-flag-is-an-error-and-swallows-nothing', async () => {
    const cases: Array<[string[], string]> = [
      [['inspect', session, '--bogus', 'value'], 'error: unknown option --bogus for inspect (it takes --context-window, --max-output, --model, --leaf, --system, --protected-tools, --prune-minimum, --prune-protect, --json)'],
      [['verify', session, '--leaf', firstId], 'error: unknown option --leaf for verify (it takes --json)'],
      [['context', session, '-j'], 'error: unknown option -j for context (it takes --leaf, --model, --system, --json)'],
      [['context', session, '--leaf', '--json'], 'error: option --leaf needs a value, not the option --json (write --leaf=--json for a value that starts with dashes)'],
      [['context', session, '--model'], 'error: option --model needs a value'],
      [['verify', session, '--json=yes'], 'error: option --json takes no value'],
      [['context', session, '--toString'], 'error: unknown option --toString for context (it takes --leaf, --model, --system, --json)'],
    ];
    for (const [argv, message] of cases) {
      expect(await run(...argv), argv.join(' ')).toEqual({ code: 2, out: '', err: message });
    }
  });

  it('options-take-values-inline-or-next-and-negative-numbers-stay-values', async () => {
    const inline = await run('context', session, `--leaf=${firstId}`, '--system=-be brief-', '--json');
    expect(inline.code).toBe(0);
    const printed = JSON.parse(inline.out) as { messages: ChatMessage[] };
    expect(printed.messages).toEqual([{ role: 'system', content: '-be brief-' }, { role: 'user', content: 'first' }]);
    const separate = JSON.parse((await run('context', session, '--leaf', firstId, '--json')).out) as { messages: ChatMessage[] };
    expect(separate.messages).toEqual([{ role: 'user', content: 'first' }]);
    // `-5` is the window's value, so the error is about the number, not a missing value.
    expect(await run('inspect', session, '--context-window', '-5')).toEqual({ code: 2, out: '', err: 'error: --context-window must be a positive whole number of tokens, got "-5"' });
  });

  it('parses into positionals, options and switches, after -- everything is positional', () => {
    const parsed = parseArgs(['a.jsonl', '--leaf', 'x', '--json', '--', '--not-a-flag'], { leaf: 'string', json: 'boolean' }, 'context');
    expect(parsed.positionals).toEqual(['a.jsonl', '--not-a-flag']);
    expect([...parsed.options]).toEqual([['leaf', 'x']]);
    expect([...parsed.switches]).toEqual(['json']);
    expect(() => parseArgs(['--leaf'], { leaf: 'string' }, 'context')).toThrow(UsageError);
  });

  it('an-entry-id-starting-with-a-dash-is-a-value', () => {
    // Entry ids are base64url, so about one in 64 starts with "-".
    const parsed = parseArgs(['a.jsonl', '--leaf', '-K6QZx8o', '--json'], { leaf: 'string', json: 'boolean' }, 'context');
    expect([...parsed.options]).toEqual([['leaf', '-K6QZx8o']]);
    expect([...parsed.switches]).toEqual(['json']);
  });
});
