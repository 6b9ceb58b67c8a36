// The agent loop against a scripted model and a real session log: steps, tools, overflow recovery, guards.
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/core/agent/agentLoop';
import { runAgent } from '../../src/core/agent/agentLoop';
import { sessionAccess } from '../../src/core/agent/agentLog';
import { readTranscriptTool } from '../../src/core/tools/sessionTools';
import { DEFAULT_TOOL_LIMITS } from '../../src/core/tools/toolTypes';
import { type Settings } from '../../src/core/settings/settings';
import { collect, OVERFLOW, orphanProblems, recordingSummarizer, scriptedModel, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

function options(script: readonly ScriptStep[], extra: Partial<AgentOptions> & { settings?: Settings } = {}) {
  const model = scriptedModel(script);
  const summarizer = recordingSummarizer();
  const agent: AgentOptions = {
    ...baseAgentOptions(fixture, model),
    summarize: summarizer.summarize,
    userText: 'Fix the constant in src/a.ts',
    ...extra,
  };
  return { agent, model, summarizer };
}

async function seedHistory(turns: number, size = 400): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await fixture.session.log.append({ type: 'user', text: `question ${i} ${'lorem ipsum '.repeat(size / 2)}` });
    await fixture.session.log.append({ type: 'assistant', text: `answer ${i} ${'dolor sit amet '.repeat(size / 3)}`, toolCalls: [], stopReason: 'stop' });
  }
}

describe('runAgent', () => {
  it('runs a multi-step task: tool calls, results, edits, final answer, all appended in order', async () => {
    fixture.ws.write('src/a.ts', 'export const answer = 41;\n');
    const { agent, model } = options([
      { text: 'Reading the file.', toolCalls: [{ name: 'read_file', args: { path: 'src/a.ts' } }], usage: { promptTokens: 1500, completionTokens: 20 } },
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', oldText: '41', newText: '42' } }] },
      { text: 'Changed 41 to 42.' },
    ]);
    const events = await collect(runAgent(agent));
    const path = fixture.session.log.path();
    expect(path.map((entry) => entry.type)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'toolResult', 'assistant']);
    expect(path[2]).toMatchObject({ type: 'toolResult', toolName: 'read_file', toolCallId: 'call_0_0', isError: false, content: '1\texport const answer = 41;' });
    expect(path[4]).toMatchObject({ toolName: 'edit_file', isError: false, content: 'Edited src/a.ts at line 1.' });
    expect(path[5]).toMatchObject({ type: 'assistant', text: 'Changed 41 to 42.', stopReason: 'stop', model: 'gpt-4o' });
    expect(path[1]).toMatchObject({ usage: { promptTokens: 1500, completionTokens: 20 } });
    expect(readFileSync(nodePath.join(fixture.ws.root, 'src/a.ts'), 'utf8')).toBe('export const answer = 42;\n');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]?.messages[0]?.role).toBe('system');
    expect(model.requests[0]?.tools?.map((tool) => tool.function.name)).toContain('read_stored_output');
    expect(model.requests[2]?.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1_0', content: 'Edited src/a.ts at line 1.' });
    expect(events.map((event) => event.type).filter((type) => type !== 'textDelta')).toEqual([
      'turnStart', 'message', 'usage', 'toolStart', 'toolEnd', 'message', 'usage', 'toolStart', 'toolEnd', 'message', 'usage', 'done',
    ]);
    expect(events.find((event) => event.type === 'toolEnd' && event.call.name === 'edit_file')).toMatchObject({ files: { modified: ['src/a.ts'] } });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'finished', steps: 3 });
    expect(orphanProblems(path)).toEqual([]);
  });

  it('reports invalid tool arguments and unknown tools to the model without stopping', async () => {
    const { agent } = options([
      { toolCalls: [{ name: 'read_file', rawArguments: '{"path": "a' }, { name: 'delete_everything', args: {} }] },
      { text: 'Sorry.' },
    ]);
    await collect(runAgent(agent));
    const results = fixture.session.log.path().filter((entry) => entry.type === 'toolResult');
    expect(results.map((entry) => entry.isError)).toEqual([true, true]);
    expect(results[0]?.content).toContain('not valid JSON');
    expect(results[1]?.content).toContain('Unknown tool "delete_everything"');
  });

  it('judges each call of a reply on its own when the server repeats or omits ids: bad arguments refuse only their own call', async () => {
    fixture.ws.write('notes.txt', 'the valid call read this\n');
    const { agent, model } = options([
      {
        toolCalls: [
          { id: 'call_0', name: 'read_file', rawArguments: '{"path": "no' },
          { id: 'call_0', name: 'read_file', args: { path: 'notes.txt' } },
          { id: '', name: 'read_file', rawArguments: '{"path"' },
          { id: '', name: 'read_file', args: { path: 'notes.txt' } },
        ],
      },
      { text: 'Read it.' },
    ]);
    await collect(runAgent(agent));
    const results = fixture.session.log.path().filter((entry) => entry.type === 'toolResult');
    expect(results.map((entry) => entry.isError)).toEqual([true, false, true, false]);
    expect(results.map((entry) => entry.content.includes('not valid JSON'))).toEqual([true, false, true, false]);
    expect(results[1]?.content).toContain('the valid call read this');
    // A call sent without an id gets one, so its result names it.
    expect(results.map((entry) => entry.toolCallId)).toEqual(['call_0', 'call_0', 'call_2', 'call_3']);
    expect(model.requests[1]?.messages.filter((message) => message.role === 'tool')).toHaveLength(4);
  });

  it('on an overflow error compacts once and retries: two model calls, one compaction', async () => {
    // Enough history that what the compaction summarizes (beyond the kept quarter of the window) spans several transcript pages.
    await seedHistory(24);
    const { agent, model, summarizer } = options([{ error: OVERFLOW }, { text: 'Done after compaction.' }]);
    const events = await collect(runAgent(agent));
    expect(model.requests).toHaveLength(2);
    expect(summarizer.calls).toHaveLength(1);
    const compactions = fixture.session.log.path().filter((entry) => entry.type === 'compaction');
    expect(compactions).toHaveLength(1);
    expect(events.find((event) => event.type === 'compactionStart')).toEqual({ type: 'compactionStart', reason: 'overflow' });
    expect(model.requests[1]?.messages[1]?.content).toContain('Summarized');
    expect(model.requests[1]!.messages.length).toBeLessThan(model.requests[0]!.messages.length);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
    const context = { signal: new AbortController().signal, workspace: agent.workspace, session: sessionAccess(fixture.session.log), limits: DEFAULT_TOOL_LIMITS, toolCallId: 'c' };
    const firstPage = await readTranscriptTool.execute({}, context);
    expect(firstPage.text).toMatch(/continue with offset 20000\]$/);
    const transcript = await readTranscriptTool.execute({}, { ...context, limits: { ...DEFAULT_TOOL_LIMITS, pageChars: 1_000_000 } });
    expect(transcript.isError).toBe(false);
    expect(transcript.text).toMatch(/^#1 user \([^)]+\):\nquestion 0 /);
    const summarizedIds = summarizer.calls[0]!.entries.map((entry) => entry.id);
    for (const id of summarizedIds) expect(transcript.text).toContain(`(${id})`);
    const page = await readTranscriptTool.execute({ startMessage: 2, endMessage: 2 }, context);
    expect(page.text).toMatch(/^#2 assistant \([^)]+\):\nanswer 0 /);
    expect(page.text).not.toContain('#3');
  });

  it('a second overflow is a clear error, not a loop', async () => {
    await seedHistory(6);
    const { agent, model, summarizer } = options([{ error: OVERFLOW }, { error: OVERFLOW }, { text: 'never reached' }]);
    const events = await collect(runAgent(agent));
    expect(model.requests).toHaveLength(2);
    expect(summarizer.calls).toHaveLength(1);
    expect(fixture.session.log.path().filter((entry) => entry.type === 'compaction')).toHaveLength(1);
    const error = events.find((event) => event.type === 'error');
    expect(error).toMatchObject({ type: 'error', error: { kind: 'overflow' } });
    expect(error?.type === 'error' && error.message).toContain('too long for the model');
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
  });

  it('stops at the step limit', async () => {
    fixture.ws.write('x.txt', 'x\n');
    const forever: ScriptStep = { toolCalls: [{ name: 'read_file', args: { path: 'x.txt' } }] };
    const { agent, model } = options([forever, forever, forever, forever, forever], { maxSteps: 3 });
    const events = await collect(runAgent(agent));
    expect(model.requests).toHaveLength(3);
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'maxSteps', steps: 3 });
    expect(orphanProblems(fixture.session.log.path())).toEqual([]);
  });

  it('passes a non-overflow model error through with a clear message and keeps the partial text', async () => {
    const { agent } = options([{ error: { kind: 'auth', message: 'The endpoint rejected the API key (401).', retryable: false } }]);
    const events = await collect(runAgent(agent));
    expect(events.find((event) => event.type === 'error')).toMatchObject({ message: 'The endpoint rejected the API key (401).' });
    expect(fixture.session.log.path().map((entry) => entry.type)).toEqual(['user']);
  });
});
