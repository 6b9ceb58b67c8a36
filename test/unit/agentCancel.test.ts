// Cancelling the agent mid-stream and mid-tool leaves a consistent log: no dangling calls, no orphaned results.
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/core/agent/agentLoop';
import { runAgent } from '../../src/core/agent/agentLoop';
import { buildContext } from '../../src/core/context/contextBuilder';
import { collect, orphanProblems, scriptedModel, wireOrphans, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture((workspace) => {
  workspace.write('a.txt', 'alpha\n');
});

function agentWith(script: readonly ScriptStep[], controller: AbortController): AgentOptions {
  return { ...baseAgentOptions(fixture, scriptedModel(script)), signal: controller.signal };
}

function expectConsistent(): void {
  const path = fixture.session.log.path();
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
    const path = fixture.session.log.path();
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
    const path = fixture.session.log.path();
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
    const results = fixture.session.log.path().filter((entry) => entry.type === 'toolResult');
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
    const results = fixture.session.log.path().filter((entry) => entry.type === 'toolResult');
    expect(results).toHaveLength(2);
    expectConsistent();
  });
});
