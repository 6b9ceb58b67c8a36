// The value bench's yardstick: availability per call (drops and caps are losses), the bootstrap interval, the frontier rule, the session folder reader and the peers' summary requests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AvailabilityIndex, bootstrapShare, messageTokens } from '../../bench/availability';
import { folderWorkloads, modelCalls } from '../../bench/costWorkloads';
import { NeedIndex, type TraceItem } from '../../bench/needRetention';
import { OPENCODE, PI } from '../../bench/peerPolicies';
import { openCodeSerialized, piSerialized, replayPeer } from '../../bench/peerReplay';
import { PrefixCache } from '../../bench/prefixCache';
import { fromClaudeCode, fromCodex, fromMiniSweAgent, piSessionJsonl, type ConvertedSession } from '../../bench/sessionConverters';
import type { RecordedTurn } from '../../bench/costWorkloads';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';

const trace: TraceItem[] = [
  { kind: 'user', text: 'Fix the retry in the settings loader.' },
  { kind: 'reply', text: 'read src/core/settingsLoader.ts' },
  { kind: 'output', text: 'export function loadSettingsWithRetry(path) {}' },
  { kind: 'reply', text: 'I will change loadSettingsWithRetry in settingsLoader.ts and newThing.' },
];

describe('availability per call', () => {
  it('counts the earlier-seen things a reply uses that some message of its prompt holds, and none for a dropped call', async () => {
    const meter = new PrefixCache(await TokenCounter.create('gpt-4o'));
    const index = new NeedIndex(trace);
    const available = new AvailabilityIndex(meter);
    const tools: never[] = [];
    const full = meter.bill({ kind: 'main', messages: [{ role: 'user', content: 'see src/core/settingsLoader.ts' }, { role: 'tool', tool_call_id: 'a', content: 'export function loadSettingsWithRetry(path) {}' }], tools, outputTokens: 1 });
    // settingsLoader.ts (named by its file name only) and loadSettingsWithRetry appeared earlier; newThing did not.
    expect(available.sample(index, 3, full.parts)).toEqual({ needs: 2, available: 2 });
    const pruned = meter.bill({ kind: 'main', messages: [{ role: 'user', content: 'see src/core/settingsLoader.ts' }, { role: 'tool', tool_call_id: 'a', content: '[output pruned]' }], tools, outputTokens: 1 });
    expect(available.sample(index, 3, pruned.parts)).toEqual({ needs: 2, available: 1 });
    expect(available.sample(index, 3, null)).toEqual({ needs: 2, available: 0 });
  });

  it('finds a command the prompt ran before, and a path by its trailing parts', () => {
    const tokens = messageTokens({ role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'run_command', arguments: JSON.stringify({ command: 'npm test' }) } }] });
    expect(tokens.has('npm test')).toBe(true);
    const path = messageTokens({ role: 'user', content: 'open packages/app/src/main.ts' });
    expect([...path]).toEqual(expect.arrayContaining(['packages/app/src/main.ts', 'src/main.ts', 'main.ts']));
  });
});

describe('bootstrap interval', () => {
  it('brackets the pooled share, narrows with more calls, and is the same on every run', () => {
    const few = Array.from({ length: 20 }, (_, i) => ({ part: i % 4 === 0 ? 0 : 2, whole: 2 }));
    const many = Array.from({ length: 2000 }, (_, i) => ({ part: i % 4 === 0 ? 0 : 2, whole: 2 }));
    const a = bootstrapShare(few);
    const b = bootstrapShare(many);
    expect(a.value).toBeCloseTo(0.75);
    expect(a.low ?? 1).toBeLessThan(0.75);
    expect(a.high ?? 0).toBeGreaterThan(0.75);
    expect((b.high ?? 0) - (b.low ?? 0)).toBeLessThan((a.high ?? 0) - (a.low ?? 0));
    expect(bootstrapShare(few)).toEqual(a);
    expect(bootstrapShare([{ part: 0, whole: 0 }])).toMatchObject({ value: null, units: 0 });
  });
});

describe('session folders', () => {
  it('reads .jsonl and .jsonl.gz pi sessions with their times, skips broken lines, and names an empty folder', () => {
    const dir = mkdtempSync(nodePath.join(tmpdir(), 'value-sessions-'));
    const lines = [
      { type: 'session', id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w', source: 'somewhere' },
      { type: 'message', timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
      { type: 'message', timestamp: '2026-01-01T00:00:05.000Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.ts' } }] } },
      { type: 'message', timestamp: '2026-01-01T00:00:06.000Z', message: { role: 'toolResult', toolCallId: 'c1', content: [{ type: 'text', text: 'x' }] } },
      { type: 'message', timestamp: '2026-01-01T00:10:06.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] } },
    ];
    const text = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n{not json\n`;
    writeFileSync(nodePath.join(dir, 'a.jsonl'), text);
    writeFileSync(nodePath.join(dir, 'b.jsonl.gz'), gzipSync(text));
    writeFileSync(nodePath.join(dir, 'notes.txt'), 'ignored');
    const workloads = folderWorkloads(dir, false);
    expect(workloads.map((w) => w.name)).toEqual(['a', 'b']);
    const turn = workloads[0]?.turns[0];
    expect(turn?.steps[0]?.calls[0]?.name).toBe('read_file');
    expect(turn?.times).toEqual([5, 606]);
    expect(modelCalls(workloads[1]?.turns ?? [])).toBe(2);
    expect(workloads[0]?.source).toBe('somewhere');
    expect(() => folderWorkloads(mkdtempSync(nodePath.join(tmpdir(), 'empty-')), false)).toThrow(/No pi-format session files/);
    // A folder given relative to the working directory, as on the command line.
    expect(folderWorkloads(nodePath.relative(process.cwd(), dir), false).map((w) => w.name)).toEqual(['a', 'b']);
  });
});

describe('the prefix cache meter', () => {
  it('counts a message again when a field of the same object changes, and the same message alike whatever object carries it', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const meter = new PrefixCache(counter);
    const tools: never[] = [];
    const call = { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] };
    const output = { role: 'tool' as const, tool_call_id: 'c1', content: 'short' };
    const before = meter.promptTokens([call, output], tools);
    expect(meter.promptTokens([{ ...call }, { ...output }], tools)).toBe(before);
    output.content = `much longer ${'output '.repeat(200)}`;
    const longer = meter.promptTokens([call, output], tools);
    expect(longer).toBeGreaterThan(before + 150);
    expect(longer).toBe(meter.promptTokens([call, { role: 'tool', tool_call_id: 'c1', content: output.content }], tools));
    (call.tool_calls[0] as { function: { arguments: string } }).function.arguments = JSON.stringify({ path: `${'deep/'.repeat(40)}a.ts` });
    expect(meter.promptTokens([call, output], tools)).toBeGreaterThan(longer + 30);
    // A different content with the same rest is a different part.
    expect(meter.promptTokens([{ role: 'user', content: 'one' }], tools)).not.toBe(meter.promptTokens([{ role: 'user', content: 'one two three four five' }], tools));
  });
});

describe('session converters (scripts/convertSessions.mjs)', () => {
  const jsonl = (lines: unknown[]): string => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  /** The converted session as the bench reads it: written to a folder and loaded as a workload. */
  const asWorkload = (converted: ConvertedSession, kind: 'codex' | 'claude-code' | 'mini-swe-agent') => {
    const dir = mkdtempSync(nodePath.join(tmpdir(), 'converted-'));
    writeFileSync(nodePath.join(dir, 's.jsonl.gz'), gzipSync(piSessionJsonl('s', kind, converted, 'owner/repo@abc path')));
    const [workload] = folderWorkloads(dir, false);
    return workload;
  };
  const at = (second: number): string => new Date(Date.UTC(2025, 10, 1, 0, 0, second)).toISOString();
  const item = (second: number, payload: Record<string, unknown>) => ({ timestamp: at(second), type: 'response_item', payload });

  it('reads a Codex rollout: one request from consecutive inputs, one model call from consecutive outputs, shell as bash, apply_patch as a patch', () => {
    const rollout = `${jsonl([
      { timestamp: at(0), type: 'session_meta', payload: { id: 'x', cwd: '/repo', cli_version: '0.58.0' } },
      item(1, { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>' }] }),
      item(1, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the parser in src/parse.ts' }] }),
      { timestamp: at(1), type: 'event_msg', payload: { type: 'user_message', message: 'Fix the parser in src/parse.ts' } },
      { timestamp: at(1), type: 'turn_context', payload: { cwd: '/repo', model: 'gpt-5.1-codex' } },
      item(4, { type: 'reasoning', summary: [], encrypted_content: 'hidden' }),
      item(4, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading it first.' }] }),
      item(4, { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'sed -n 1,40p src/parse.ts'], workdir: '/repo' }), call_id: 'c1' }),
      item(5, { type: 'function_call_output', call_id: 'c1', output: JSON.stringify({ output: 'export function parse() {}', metadata: { exit_code: 0 } }) }),
      item(9, { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** Update File: src/parse.ts\n*** End Patch', call_id: 'c2' }),
      item(9, { type: 'custom_tool_call_output', call_id: 'c2', output: JSON.stringify({ output: 'Success.', metadata: { exit_code: 0 } }) }),
      item(12, { type: 'function_call', name: 'shell_command', arguments: JSON.stringify({ command: 'npm test' }), call_id: 'c3' }),
      item(20, { type: 'function_call_output', call_id: 'c3', output: 'Exit code: 1\nWall time: 8 seconds\nOutput:\n1 failing' }),
      { timestamp: at(21), type: 'compacted', payload: { message: 'summary Codex wrote' } },
      item(22, { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['apply_patch', '*** Begin Patch\n*** End Patch'] }), call_id: 'c4' }),
      item(23, { type: 'function_call_output', call_id: 'c4', output: 'Done!' }),
      item(30, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed; one test still fails.' }] }),
    ])}{broken line\n`;
    const converted = fromCodex(rollout);
    expect(converted).toMatchObject({ cwd: '/repo', model: 'gpt-5.1-codex', skippedLines: 1 });
    expect(converted.entries.filter((e) => e.message.role === 'assistant')).toHaveLength(5);
    const workload = asWorkload(converted, 'codex');
    expect(workload?.source).toBe('owner/repo@abc path');
    const [turn] = workload?.turns ?? [];
    expect(workload?.turns).toHaveLength(1);
    expect(turn?.user).toBe('<permissions instructions>\n\nFix the parser in src/parse.ts');
    expect(turn?.steps.map((step) => step.calls.map((call) => call.name))).toEqual([['run_command'], ['apply_patch'], ['run_command'], ['apply_patch']]);
    expect(turn?.steps[0]?.text).toBe('Reading it first.');
    expect(JSON.parse(turn?.steps[0]?.calls[0]?.args ?? '{}')).toEqual({ command: 'sed -n 1,40p src/parse.ts' });
    expect(JSON.parse(turn?.steps[1]?.calls[0]?.args ?? '{}')).toEqual({ patch: '*** Begin Patch\n*** Update File: src/parse.ts\n*** End Patch' });
    expect(turn?.steps[0]?.calls[0]).toMatchObject({ output: JSON.stringify({ output: 'export function parse() {}', metadata: { exit_code: 0 } }), isError: false });
    expect(turn?.steps[2]?.calls[0]?.isError).toBe(true);
    expect(turn?.final).toBe('Fixed; one test still fails.');
    expect(turn?.times).toEqual([3, 8, 11, 21, 29]);
    expect(JSON.stringify(workload)).not.toContain('summary Codex wrote');
  });

  it('reads a Claude Code log: blocks of one message id are one call, sub-agent lines, meta lines and its compaction summary are left out', () => {
    const line = (second: number, type: string, message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type, timestamp: at(second), cwd: '/w', isSidechain: false, message, ...extra });
    const log = `${jsonl([
      line(0, 'user', { role: 'user', content: 'Rename the helper' }),
      line(0, 'user', { role: 'user', content: 'caveat' }, { isMeta: true }),
      line(3, 'assistant', { id: 'm1', model: 'claude-sonnet-4-5', content: [{ type: 'thinking', thinking: 'hidden' }] }),
      line(3, 'assistant', { id: 'm1', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Looking.' }] }),
      line(4, 'assistant', { id: 'm1', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/w/a.ts', limit: 20 } }] }),
      line(4, 'assistant', { id: 's1', content: [{ type: 'text', text: 'sub-agent work' }] }, { isSidechain: true }),
      line(5, 'user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '1 export const helper = 1' }] }] }),
      line(6, 'user', { role: 'user', content: 'This session is being continued from a previous conversation...' }, { isCompactSummary: true }),
      line(8, 'assistant', { id: 'm2', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: '/w/a.ts', old_string: 'helper', new_string: 'tool' } }] }),
      line(9, 'user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'error: not unique', is_error: true }] }),
      line(12, 'assistant', { id: 'm3', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done.' }] }),
    ])}{"parentUuid": "x", "content":"M\\[REDACTED]"}\n`;
    const converted = fromClaudeCode(log);
    expect(converted).toMatchObject({ cwd: '/w', model: 'claude-sonnet-4-5', skippedLines: 1 });
    const turns = asWorkload(converted, 'claude-code')?.turns ?? [];
    expect(turns.map((turn) => turn.user)).toEqual(['Rename the helper']);
    const [turn] = turns;
    expect(turn?.steps.map((step) => step.text)).toEqual(['Looking.', '']);
    expect(turn?.steps[0]?.calls[0]).toMatchObject({ name: 'read_file', args: JSON.stringify({ path: '/w/a.ts', limit: 20 }), output: '1 export const helper = 1', isError: false });
    expect(turn?.steps[1]?.calls[0]).toMatchObject({ name: 'edit_file', args: JSON.stringify({ path: '/w/a.ts', oldText: 'helper', newText: 'tool' }), isError: true });
    expect(turn?.final).toBe('Done.');
    expect(JSON.stringify(turns)).not.toMatch(/sub-agent work|being continued|caveat|hidden/);
  });

  it('reads a mini-swe-agent trajectory: one bash block a reply, the next message its output', () => {
    const trajectory = {
      info: { config: { model: { model_name: 'some/model' } } },
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'Fix issue 1' },
        { role: 'assistant', content: 'Look first.\n```bash\nls src\n```', extra: { response: { created: 1_700_000_000 } } },
        { role: 'user', content: '<returncode>0</returncode>\n<output>a.py</output>' },
        { role: 'assistant', content: 'Run it.\n```bash\npython a.py\n```', extra: { response: { created: 1_700_000_030 } } },
        { role: 'user', content: '<returncode>1</returncode>\n<output>Traceback</output>' },
      ],
      trajectory_format: 'mini-swe-agent-1',
    };
    const converted = fromMiniSweAgent(JSON.stringify(trajectory));
    expect(converted.model).toBe('some/model');
    const [turn] = asWorkload(converted, 'mini-swe-agent')?.turns ?? [];
    expect(turn?.user).toBe('Fix issue 1');
    expect(turn?.steps.map((step) => [step.text, step.calls[0]?.args, step.calls[0]?.isError])).toEqual([
      ['Look first.', JSON.stringify({ command: 'ls src' }), false],
      ['Run it.', JSON.stringify({ command: 'python a.py' }), true],
    ]);
    expect(turn?.times?.map((t) => Math.round(t))).toEqual([0, 30]);
  });
});

describe("the peers' summary requests", () => {
  it('cut each tool result to 2,000 characters, as pi and current OpenCode serialize them', () => {
    const long = 'x'.repeat(5000);
    const messages = [{ role: 'tool' as const, tool_call_id: 'a', content: long }];
    expect(piSerialized(messages)).toContain('[... 3000 more characters truncated]');
    expect(piSerialized(messages).length).toBeLessThan(2100);
    expect(openCodeSerialized(messages)).toBe(`[Tool result]: ${'x'.repeat(2000)}\n[truncated]`);
  });

  it("keeps OpenCode's tail at 25 % of its usable budget (2,000–15,000), with no turn limit", () => {
    expect(OPENCODE.keepRecentTokens(200_000)).toBe(15_000);
    expect(OPENCODE.keepRecentTokens(32_000)).toBe(4_000);
    expect(OPENCODE.keepRecentTokens(8_192)).toBe(2_000);
    expect(OPENCODE.tail).toBe('opencodeTurns');
  });

  it("pi's second compaction summarizes only what came after the first (what that one kept is not summarized again)", async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const step = (i: number) => ({ text: `step ${i}`, calls: [{ name: 'read_file', args: JSON.stringify({ path: `file${i}.ts` }), output: `content of file${i}.ts ${'word '.repeat(3000)}` }] });
    const turns: RecordedTurn[] = Array.from({ length: 24 }, (_, t) => ({ user: `request ${t}`, steps: [step(t * 2), step(t * 2 + 1)], final: `done ${t}`, finalCall: true }));
    const run = replayPeer(PI, turns, { systemPrompt: 'system', tools: [], window: 60_000, counter, meter: new PrefixCache(counter) });
    const isHistory = (text: string): boolean => !text.includes('This is the PREFIX');
    const texts = run.calls.map((call) => call.messages.map((m) => m.content ?? '').join('\n'));
    const summaryAt = run.calls.flatMap((call, i) => (call.kind === 'summary' && isHistory(texts[i] ?? '') ? [i] : []));
    expect(summaryAt.length).toBeGreaterThanOrEqual(2);
    const second = texts[summaryAt[1] ?? 0] ?? '';
    // The requests the first compaction kept verbatim (in the next main call's prompt) are not summarized by the second.
    const nextMain = run.calls.findIndex((call, i) => i > (summaryAt[0] ?? 0) && call.kind === 'main');
    const kept = (run.calls[nextMain]?.messages ?? []).flatMap((m) => (m.role === 'user' && /^request \d+$/.test(m.content) ? [m.content] : []));
    expect(kept.length).toBeGreaterThan(0);
    const conversation = second.split('</conversation>')[0] ?? '';
    expect(conversation).toMatch(/\[Assistant\]: (step|done) \d+/);
    for (const request of kept) expect(conversation).not.toContain(`[User]: ${request}\n`);
    expect(second).toContain('<previous-summary>');
    expect(second).not.toContain('word '.repeat(600));
  });
});
