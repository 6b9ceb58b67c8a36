// Cancelling the agent mid-stream and mid-tool leaves a consistent log: no dangling calls, no orphaned results.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/core/agent/agentLoop';
import { runAgent } from '../../src/core/agent/agentLoop';
import { buildContext } from '../../src/core/context/contextBuilder';
import { defaultSettings } from '../../src/core/settings/settings';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { collect, orphanProblems, recordingSummarizer, scriptedModel, tempSession, wireOrphans, type ScriptStep, type TempSession } from '../support/agentFakes';
import { recordingAccess, tempWorkspace, type TempWorkspace } from '../support/agentWorkspace';

let ws: TempWorkspace;
let session: TempSession;

beforeEach(async () => {
  ws = tempWorkspace();
  ws.write('a.txt', 'alpha\n');
  session = await tempSession();
});

afterEach(async () => {
  await session.cleanup();
  ws.cleanup();
});

function agentWith(script: readonly ScriptStep[], controller: AbortController): AgentOptions {
  return {
    log: session.log,
    model: scriptedModel(script),
    modelId: 'gpt-4o',
    registry: new ToolRegistry(),
    workspace: recordingAccess(ws.root).access,
    settings: defaultSettings(),
    contextWindow: 128_000,
    counter: session.counter,
    cache: session.cache,
    summarize: recordingSummarizer().summarize,
    signal: controller.signal,
    userText: 'go',
  };
}

function expectConsistent(): void {
  const path = session.log.path();
  expect(orphanProblems(path)).toEqual([]);
  expect(wireOrphans({ messages: buildContext(path).messages })).toEqual([]);
}

describe('cancellation', () => {
  it('mid-stream: the partial text is kept with stopReason aborted and an incomplete tool call is dropped', async () => {
    const controller = new AbortController();
    const script: ScriptStep[] = [{ text: 'I will now read the fi', toolCalls: [{ name: 'read_file', rawArguments: '{"path": "a.t' }], hang: true }];
    const events = await collect(runAgent(agentWith(script, controller)), (event) => {
      if (event.type === 'textDelta') controller.abort();
    });
    const path = session.log.path();
    expect(path.map((entry) => entry.type)).toEqual(['user', 'assistant']);
    expect(path[1]).toMatchObject({ type: 'assistant', text: 'I will now read the fi', toolCalls: [], stopReason: 'aborted' });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'aborted' });
    expectConsistent();
  });

  it('mid-stream with a complete tool call: the call is kept and answered "[cancelled by the user]"', async () => {
    const controller = new AbortController();
    const script: ScriptStep[] = [{ text: 'Reading.', toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }], hang: true }];
    await collect(runAgent(agentWith(script, controller)), (event) => {
      if (event.type === 'textDelta') controller.abort();
    });
    const path = session.log.path();
    expect(path.map((entry) => entry.type)).toEqual(['user', 'assistant', 'toolResult']);
    expect(path[2]).toMatchObject({ toolCallId: 'call_0_0', isError: true, content: '[cancelled by the user]' });
    expectConsistent();
  });

  it('mid-tool: the running command stops and every pending call gets a cancelled result', async () => {
    const controller = new AbortController();
    const script: ScriptStep[] = [
      { toolCalls: [{ name: 'run_command', args: { command: 'sleep 30' } }, { name: 'read_file', args: { path: 'a.txt' } }, { name: 'list_dir', args: {} }] },
      { text: 'never reached' },
    ];
    const agent = agentWith(script, controller);
    const events = await collect(runAgent(agent), (event) => {
      if (event.type === 'toolStart' && event.call.name === 'run_command') setTimeout(() => controller.abort(), 30);
    });
    const results = session.log.path().filter((entry) => entry.type === 'toolResult');
    expect(results.map((entry) => entry.toolName)).toEqual(['run_command', 'read_file', 'list_dir']);
    expect(results.every((entry) => entry.isError && entry.content.endsWith('[cancelled by the user]'))).toBe(true);
    expect((agent.model as ReturnType<typeof scriptedModel>).requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'aborted' });
    expectConsistent();
  });

  it('a consumer that stops iterating during tools still leaves every call answered', async () => {
    const controller = new AbortController();
    const script: ScriptStep[] = [{ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }, { name: 'list_dir', args: {} }] }];
    for await (const event of runAgent(agentWith(script, controller))) {
      if (event.type === 'toolStart') break;
    }
    const results = session.log.path().filter((entry) => entry.type === 'toolResult');
    expect(results).toHaveLength(2);
    expectConsistent();
  });
});
