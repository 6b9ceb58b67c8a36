// Sub-agents: the delegate tool runs a sub-task in a linked child session with read-only tools; only its answer reaches the parent.
import { writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { SessionEngine } from '../../src/core/agent/sessionEngine';
import type { ChildSession } from '../../src/core/agent/subagent';
import { answerCap, SUBAGENT_MAX_STEPS, SUBAGENT_TOOLS, subagentDelegate } from '../../src/core/agent/subagent';
import type { ToolResultEntry } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { SessionIndexStore } from '../../src/core/session/sessionIndex';
import { validateEntry, validateHeader } from '../../src/core/session/entryValidation';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { delegateTool } from '../../src/core/tools/delegateTool';
import { builtinTools, ToolRegistry } from '../../src/core/tools/toolRegistry';
import { toHistoryView } from '../../src/core/views/historyView';
import { pathUsage } from '../../src/core/views/usageView';
import { collect, orphanProblems, recordingSummarizer, scriptedModel, wireOrphans, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const MARKER = 'EXPLORED-CONTENT-MARKER';
const fixture = useAgentFixture((ws) => {
  ws.write('src/config.ts', `// ${MARKER}\n${'export const setting = "value";\n'.repeat(400)}export const port = 8080;\n`);
  ws.write('src/other.ts', `// ${MARKER}\nexport const other = 1;\n`);
});

interface Children {
  made: Array<{ log: SessionLog; engine: SessionEngine<never> }>;
  create: (task: string, toolCallId: string) => Promise<ChildSession>;
}

function children(prefix = 'child'): Children {
  const made: Children['made'] = [];
  return {
    made,
    create: async (task, toolCallId) => {
      const log = await SessionLog.create(nodePath.join(fixture.session.dir, `${prefix}-${made.length}.jsonl`), { title: `Sub-task: ${task}`, parent: { sessionId: fixture.session.log.header.id, toolCallId } }, { lock: false });
      const engine = new SessionEngine<never>();
      made.push({ log, engine });
      return { id: log.header.id, log, beginRequest: (signal) => engine.beginRequest(signal), summarize: recordingSummarizer().summarize };
    },
  };
}

function registryWithDelegate(model: ReturnType<typeof scriptedModel>, made: Children, onProgress?: (line: string) => void, contextWindow = 128_000): ToolRegistry {
  const base = { ...baseAgentOptions(fixture, model), contextWindow };
  const { log: _log, registry: _registry, signal: _signal, userText: _userText, cache: _cache, summarize: _summarize, ...parent } = base;
  const delegate = subagentDelegate({ createChild: made.create, parent, ...(onProgress ? { onProgress } : {}) });
  return new ToolRegistry([...builtinTools(), delegateTool(delegate)]);
}

const usage = { promptTokens: 1000, completionTokens: 50 };

describe('sub-agents', () => {
  it('delegated-exploration-returns-only-its-answer', async () => {
    const script: ScriptStep[] = [
      { toolCalls: [{ name: 'delegate', args: { task: 'Find which port the server listens on.' } }], usage },
      (request) => {
        // The child starts from the task alone: none of the parent's conversation, and no tool to delegate again.
        expect(request.messages.some((message) => JSON.stringify(message).includes('where is the port set'))).toBe(false);
        expect(request.tools?.map((tool) => tool.function.name).sort()).toEqual([...SUBAGENT_TOOLS].sort());
        return { toolCalls: [{ name: 'search_text', args: { pattern: 'port' } }], usage };
      },
      { toolCalls: [{ name: 'read_file', args: { path: 'src/config.ts' } }, { name: 'read_file', args: { path: 'src/other.ts' } }], usage },
      { text: 'The port is 8080, set in src/config.ts (last line).', usage },
      { text: 'It listens on 8080.', usage },
    ];
    const model = scriptedModel(script);
    const made = children();
    const progress: string[] = [];
    await collect(runAgent({ ...baseAgentOptions(fixture, model), registry: registryWithDelegate(model, made, (line) => progress.push(line)), userText: 'where is the port set?' }));

    const parentPath = fixture.session.log.path();
    const result = parentPath.find((entry): entry is ToolResultEntry => entry.type === 'toolResult');
    expect(result?.toolName).toBe('delegate');
    expect(result?.content).toMatch(/^The port is 8080, set in src\/config\.ts \(last line\)\./);
    // The parent never saw what the child read: not in its log, not in any request the parent sent.
    expect(JSON.stringify(parentPath)).not.toContain(MARKER);
    expect(JSON.stringify(model.requests[4]?.messages)).not.toContain(MARKER);
    expect(JSON.stringify(model.requests[4]?.messages)).toContain('The port is 8080');
    expect(orphanProblems(parentPath)).toEqual([]);

    // The child session keeps the whole exploration and names its parent.
    const child = made.made[0];
    expect(made.made).toHaveLength(1);
    expect(child?.log.header.parent).toEqual({ sessionId: fixture.session.log.header.id, toolCallId: result?.toolCallId });
    expect(JSON.stringify(child?.log.path())).toContain(MARKER);
    expect(child?.engine.state).toBe('idle');
    expect(result?.subagent).toEqual({ sessionId: child?.log.header.id, calls: 3, promptTokens: 3000, completionTokens: 150 });
    expect(progress).toEqual([expect.stringMatching(/^search_text /), expect.stringMatching(/^read_file .*config/), expect.stringMatching(/^read_file .*other/)]);

    // The panel lists the sub-task with its child session, to open from there.
    expect(toHistoryView(parentPath).subtasks).toEqual([{ sessionId: child?.log.header.id, task: 'Find which port the server listens on.', calls: 3, tokens: 3150 }]);
    // The parent's usage counts the child's three calls with its own two.
    expect(pathUsage(parentPath).session).toMatchObject({ calls: 5, promptTokens: 5000, outputTokens: 250 });
    await child?.log.close();
  });

  it.each([8192, 1_000_000])('holds with default settings at a %i-token window: the child reads, the parent gets only the answer', async (window) => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'delegate', args: { task: 'Find the port.' } }] },
      { toolCalls: [{ name: 'read_file', args: { path: 'src/config.ts' } }] },
      { text: 'Port 8080 (src/config.ts).' },
      { text: 'It is 8080.' },
    ]);
    const made = children();
    const events = await collect(runAgent({ ...baseAgentOptions(fixture, model), contextWindow: window, registry: registryWithDelegate(model, made, undefined, window), userText: 'which port?' }));
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(JSON.stringify(model.requests[3]?.messages)).not.toContain(MARKER);
    expect(JSON.stringify(model.requests[3]?.messages)).toContain('Port 8080 (src/config.ts).');
    expect(JSON.stringify(made.made[0]?.log.path())).toContain(MARKER);
    await made.made[0]?.log.close();
  });

  it("a long answer is cut to the cap measured with the parent's tokenizer", async () => {
    const long = Array.from({ length: 3000 }, (_, index) => `finding ${index}`).join('\n');
    const model = scriptedModel([{ toolCalls: [{ name: 'delegate', args: { task: 'List everything.' } }] }, { text: long }, { text: 'Noted.' }]);
    const made = children();
    await collect(runAgent({ ...baseAgentOptions(fixture, model), contextWindow: 8192, registry: registryWithDelegate(model, made, undefined, 8192), userText: 'survey' }));
    const result = fixture.session.log.path().find((entry): entry is ToolResultEntry => entry.type === 'toolResult');
    const answer = (result?.content ?? '').split('\n\n[sub-task session')[0] ?? '';
    expect(fixture.session.counter.countText(answer)).toBeLessThanOrEqual(answerCap(8192));
    expect(answer.length).toBeGreaterThan(0);
    expect(result?.content).toContain('answer shortened to its cap');
    await made.made[0]?.log.close();
  });

  it("stopping the parent's request stops the child's, and every call keeps its result", async () => {
    const abort = new AbortController();
    const model = scriptedModel([
      { toolCalls: [{ name: 'delegate', args: { task: 'Read everything.' } }] },
      () => {
        abort.abort();
        return { text: 'Reading…', hang: true };
      },
    ]);
    const made = children();
    const events = await collect(runAgent({ ...baseAgentOptions(fixture, model), signal: abort.signal, registry: registryWithDelegate(model, made), userText: 'go' }));
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'aborted' });
    const child = made.made[0];
    expect(child?.engine.state).toBe('idle');
    expect(orphanProblems(fixture.session.log.path())).toEqual([]);
    expect(orphanProblems(child?.log.path() ?? [])).toEqual([]);
    const result = fixture.session.log.path().find((entry): entry is ToolResultEntry => entry.type === 'toolResult');
    expect(result?.content).toContain('[cancelled by the user]');
    await child?.log.close();
  });

  it('subtask-at-limit-returns-its-findings', async () => {
    // The child reads for its whole budget of model calls and never writes a final answer; one early reply says what it found.
    const childSteps: ScriptStep[] = Array.from({ length: SUBAGENT_MAX_STEPS }, (_, step) => ({
      ...(step === 3 ? { text: 'So far: the port is set in src/config.ts (export const port = 8080).' } : {}),
      toolCalls: [{ name: 'read_file', args: { path: step % 2 === 0 ? 'src/config.ts' : 'src/other.ts' } }],
      usage,
    }));
    const model = scriptedModel([{ toolCalls: [{ name: 'delegate', args: { task: 'Find the port and everything that uses it.' } }] }, ...childSteps, { text: 'It is 8080.' }]);
    const made = children();
    await collect(runAgent({ ...baseAgentOptions(fixture, model), registry: registryWithDelegate(model, made), userText: 'which port?' }));
    const result = fixture.session.log.path().find((entry): entry is ToolResultEntry => entry.type === 'toolResult');
    expect(result?.content).not.toContain('gave no answer');
    expect(result?.content).toContain('So far: the port is set in src/config.ts (export const port = 8080).');
    expect(result?.content).toMatch(/reached its limit of 25 model calls before it wrote its answer/);
    expect(result?.content).toMatch(/What it read \(25 tool calls\): read_file: src\/config\.ts, src\/other\.ts\./);
    expect(result?.content).toContain('stopped at its call limit before it answered');
    expect(result?.isError).toBe(false);
    expect(result?.subagent?.calls).toBe(SUBAGENT_MAX_STEPS);
    // The parent's next call sees the findings.
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain('So far: the port is set in src/config.ts');
    await made.made[0]?.log.close();
  });

  it('one reply asking for 40 sub-tasks starts 3; the others get a note saying why; a request starts at most 8, the next request 8 again', async () => {
    const forty = Array.from({ length: 40 }, (_, n) => ({ name: 'delegate', args: { task: `Look at part ${n}.` } }));
    const answer: ScriptStep = { text: 'Part looked at.' };
    const first: ScriptStep[] = [{ toolCalls: forty }, answer, answer, answer, { toolCalls: forty.slice(0, 4) }, answer, answer, answer, { toolCalls: forty.slice(0, 4) }, answer, answer, { text: 'Done.' }];
    const second: ScriptStep[] = [{ toolCalls: forty.slice(0, 1) }, answer, { text: 'Done again.' }];
    const model = scriptedModel([...first, ...second]);
    const made = children();
    // One tool for both requests, as a long-lived caller would keep it: it counts per request.
    const registry = registryWithDelegate(model, made);
    await collect(runAgent({ ...baseAgentOptions(fixture, model), registry, userText: 'look at everything' }));
    const results = fixture.session.log.path().filter((entry): entry is ToolResultEntry => entry.type === 'toolResult');
    expect(results).toHaveLength(48);
    expect(made.made).toHaveLength(8);
    expect(results.slice(0, 40).filter((entry) => entry.subagent).length).toBe(3);
    expect(results[3]?.content).toMatch(/^delegate: not run\. One reply may start at most 3 sub-tasks \(compactionAgent\.tools\.delegateMaxPerReply\); this was delegate call 4 of that reply/);
    expect(results[3]?.isError).toBe(true);
    // Second reply: 3 more run, the fourth is over the reply's cap; third reply: 2 run, then the request's 8 are used.
    expect(results.slice(40, 44).map((entry) => entry.subagent !== undefined)).toEqual([true, true, true, false]);
    expect(results.slice(44, 48).map((entry) => entry.subagent !== undefined)).toEqual([true, true, false, false]);
    expect(results[46]?.content).toMatch(/^delegate: not run\. This request has already run 8 sub-tasks, the most one request may \(compactionAgent\.tools\.delegateMaxPerRequest\)/);
    expect(model.requests).toHaveLength(first.length);
    await collect(runAgent({ ...baseAgentOptions(fixture, model), registry, userText: 'and one more' }));
    expect(made.made).toHaveLength(9);
    expect(model.requests).toHaveLength(first.length + second.length);
    for (const child of made.made) await child.log.close();
  });

  it('delegate-cap-counts-calls-not-ids', async () => {
    // llama.cpp and Ollama number calls per response: six delegate calls in one reply all named "call_0", then six with no id.
    for (const id of ['call_0', '']) {
      const six = Array.from({ length: 6 }, (_, n) => ({ id, name: 'delegate', args: { task: `Look at part ${n} (${id || 'no id'}).` } }));
      const answer: ScriptStep = { text: 'Part looked at.' };
      const model = scriptedModel([{ toolCalls: six }, answer, answer, answer, { text: 'Done.' }]);
      const made = children(id === '' ? 'unnamed' : 'repeated');
      const before = fixture.session.log.path().length;
      await collect(runAgent({ ...baseAgentOptions(fixture, model), registry: registryWithDelegate(model, made), userText: `look at all six parts (${id || 'no id'})` }));
      const results = fixture.session.log.path().slice(before).filter((entry): entry is ToolResultEntry => entry.type === 'toolResult');
      // Three sub-tasks start (the cap per reply); the other three start nothing and say why, in call order.
      expect(made.made).toHaveLength(3);
      expect(results).toHaveLength(6);
      expect(results.map((entry) => entry.subagent !== undefined)).toEqual([true, true, true, false, false, false]);
      for (const [position, refused] of results.slice(3).entries()) {
        expect(refused.content).toMatch(new RegExp(`^delegate: not run\\. One reply may start at most 3 sub-tasks \\(compactionAgent\\.tools\\.delegateMaxPerReply\\); this was delegate call ${position + 4} of that reply`));
        expect(refused.isError).toBe(true);
      }
      // Each child was given its own call's task, and every call went back to the model answered once, under an id of its own.
      expect(made.made.map((child) => child.log.header.title)).toEqual([0, 1, 2].map((n) => `Sub-task: Look at part ${n} (${id || 'no id'}).`));
      const next = model.requests.at(-1);
      expect(next && wireOrphans(next)).toEqual([]);
      const wireIds = next?.messages.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [])) ?? [];
      expect(new Set(wireIds).size).toBe(wireIds.length);
      expect(wireIds.every((wireId) => wireId !== '')).toBe(true);
      // The panel pairs each sub-task with its own call's task (by position, not by the shared id), newest first.
      expect(toHistoryView(fixture.session.log.path()).subtasks?.slice(0, 3).map((task) => task.task)).toEqual([2, 1, 0].map((n) => `Look at part ${n} (${id || 'no id'}).`));
      for (const child of made.made) await child.log.close();
    }
  });

  it('sub-task usage read from a log is bounded: an absurd or negative count is dropped with the link, the output kept', () => {
    const line = (subagent: unknown): unknown => ({ type: 'toolResult', id: 'r', parentId: null, timestamp: 't', toolCallId: 'c', toolName: 'delegate', isError: false, content: 'The answer.', subagent });
    for (const bad of [{ sessionId: 's', calls: 1e300, promptTokens: 1, completionTokens: 1 }, { sessionId: 's', calls: 1, promptTokens: -5, completionTokens: 1 }, { sessionId: 's', calls: 1, promptTokens: 1, completionTokens: 1, cost: 1e12 }]) {
      const checked = validateEntry(line(bad));
      expect('entry' in checked && checked.entry).toMatchObject({ type: 'toolResult', content: 'The answer.' });
      expect('entry' in checked && 'subagent' in checked.entry).toBe(false);
      if ('entry' in checked) expect(pathUsage([checked.entry]).session).toMatchObject({ calls: 0, promptTokens: 0, outputTokens: 0, cost: 0 });
    }
    const good = validateEntry(line({ sessionId: 's', calls: 3, promptTokens: 3000, completionTokens: 150, cost: 0.02 }));
    expect('entry' in good && good.entry.type === 'toolResult' && good.entry.subagent?.calls).toBe(3);
  });

  it("a sub-task session's link to its parent survives an index rebuild; a malformed link is dropped", async () => {
    const dir = nodePath.join(fixture.session.dir, 'sessions');
    const child = await SessionLog.create(nodePath.join(dir, 'child.jsonl'), { id: 'child', title: 'Sub-task: find it', parent: { sessionId: 'parent', toolCallId: 'call_1' } }, { lock: false });
    await child.close();
    writeFileSync(nodePath.join(dir, 'odd.jsonl'), `${JSON.stringify({ type: 'session', version: 1, id: 'odd', timestamp: new Date(0).toISOString(), parent: { sessionId: 42 } })}\n`);
    writeFileSync(nodePath.join(dir, 'index.json'), '{"sessions": [ {broken');
    const { sessions } = await new SessionIndexStore(dir, nodeFileIo).load();
    expect(sessions.find((record) => record.id === 'child')?.parentId).toBe('parent');
    expect(sessions.find((record) => record.id === 'odd')).toBeDefined();
    expect(sessions.find((record) => record.id === 'odd')?.parentId).toBeUndefined();
    expect(validateHeader({ type: 'session', version: 1, id: 'odd', timestamp: 'now', parent: 'parent' })).toEqual({ header: { type: 'session', version: 1, id: 'odd', timestamp: 'now' } });
  });
});
