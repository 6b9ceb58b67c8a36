// The value bench's yardstick: availability per call (drops and caps are losses), the bootstrap interval, the frontier rule, the session folder reader and the peers' summary requests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AvailabilityIndex, bootstrapShare, messageTokens } from '../../bench/availability';
import { dominates, type FrontierPoint } from '../../bench/costBench';
import { folderWorkloads, modelCalls } from '../../bench/costWorkloads';
import { NeedIndex, type TraceItem } from '../../bench/needRetention';
import { OPENCODE, PI } from '../../bench/peerPolicies';
import { openCodeSerialized, piSerialized, replayPeer } from '../../bench/peerReplay';
import { PrefixCache } from '../../bench/prefixCache';
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

describe('the frontier rule', () => {
  const point = (cost: number, availability: number, low: number, high: number): FrontierPoint => ({ key: 'p', label: 'p', cost, availability, low, high, kind: 'peer' });
  it('needs a point both cheaper and above the other interval', () => {
    const ours = point(10, 0.8, 0.75, 0.85);
    expect(dominates(point(9, 0.9, 0.86, 0.94), ours)).toBe(true);
    expect(dominates(point(9, 0.84, 0.8, 0.88), ours)).toBe(false);
    expect(dominates(point(11, 0.99, 0.98, 1), ours)).toBe(false);
    expect(dominates(point(9.99, 0.99, 0.98, 1), ours)).toBe(false);
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
    expect(OPENCODE.keepRecentTokens(32_000)).toBe(6_000);
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
    expect(conversation).toMatch(/\[User\]: request \d+/);
    for (const request of kept) expect(conversation).not.toContain(`[User]: ${request}\n`);
    expect(second).toContain('<previous-summary>');
    expect(second).not.toContain('word '.repeat(600));
  });
});
