// Row 11: on the tool-heavy workload, the main context's peak tokens with exploration (file reads) delegated to a sub-agent, against without.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { runAgent } from '../src/core/agent/agentLoop';
import { SessionEngine } from '../src/core/agent/sessionEngine';
import type { ChildSession } from '../src/core/agent/subagent';
import { subagentDelegate } from '../src/core/agent/subagent';
import type { SummarizeFn } from '../src/core/compaction/compaction';
import type { ChatRequest, ModelStream, StreamEvent } from '../src/core/llm/modelStream';
import { defaultSettings } from '../src/core/settings/settings';
import { SessionLog } from '../src/core/session/sessionLog';
import { CountCache } from '../src/core/tokens/countCache';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { delegateTool } from '../src/core/tools/delegateTool';
import { builtinTools, ToolRegistry } from '../src/core/tools/toolRegistry';
import type { Tool } from '../src/core/tools/toolTypes';
import { nodeWorkspaceAccess } from '../test/support/nodeWorkspaceAccess';
import type { ScenarioCall, ScenarioTurn } from '../test/support/contextScenario';
import { toolHeavyTurns } from '../test/support/scenarioWorkloads';
import { figureOf, row, verdictOf, type BenchRow } from './benchReport';

/** One scripted reply: text, and calls whose recorded outputs the replay tools return. */
interface Reply {
  text: string;
  calls: ScenarioCall[];
}

/** A model that replays `replies` in order (parent and child calls interleave in the order they are made). */
function replayModel(replies: readonly Reply[], outputs: Map<string, ScenarioCall>): ModelStream {
  let index = 0;
  return {
    async *stream(_request: ChatRequest): AsyncGenerator<StreamEvent> {
      await Promise.resolve();
      const reply = replies[index] ?? { text: 'Done.', calls: [] };
      const calls = reply.calls.map((call, i) => ({ id: `call_${index}_${i}`, name: call.name, arguments: call.args }));
      reply.calls.forEach((call, i) => outputs.set(`call_${index}_${i}`, call));
      index++;
      yield { type: 'done', text: reply.text, toolCalls: calls, invalidArguments: [], stopReason: calls.length > 0 ? 'toolCalls' : 'stop' };
    },
  };
}

function replayTool(name: string, outputs: Map<string, ScenarioCall>): Tool {
  return {
    definition: { type: 'function', function: { name, description: `Recorded ${name} tool`, parameters: { type: 'object', properties: { path: { type: 'string' }, command: { type: 'string' } } } } },
    execute: (_args, context) => {
      const call = outputs.get(context.toolCallId);
      return Promise.resolve(call ? { text: call.output, isError: call.isError ?? false } : { text: 'no recorded output', isError: true });
    },
  };
}

const isExploration = (call: ScenarioCall): boolean => call.name === 'read_file';

/** The sub-agent's answer: what the files showed, in a few sentences (scripted; about 60 tokens). */
function answerFor(turn: number, files: readonly string[]): string {
  return `Read ${files.join(', ')}. The failing case in request ${turn} comes from ${files[0] ?? 'the module'}: value1 filters items by length before trimming them, so padded names are dropped; the other files only call it. Nothing else touches that filter.`;
}

/** The replies in call order: without delegation the turn as recorded; with it, the reads move into one delegate call's child. */
function script(turns: readonly ScenarioTurn[], delegated: boolean): Reply[] {
  const replies: Reply[] = [];
  turns.forEach((turn, index) => {
    const reads = turn.steps.filter((step) => step.calls.every(isExploration));
    const rest = turn.steps.filter((step) => !step.calls.every(isExploration));
    if (!delegated || reads.length === 0) {
      replies.push(...turn.steps.map((step) => ({ text: step.text, calls: step.calls })));
    } else {
      const files = reads.flatMap((step) => step.calls.map((call) => String((JSON.parse(call.args) as { path?: unknown }).path)));
      const task = `Read ${files.join(', ')} and find out why the tests for module${index % 11} fail; answer with the cause and where it is.`;
      replies.push({ text: '', calls: [{ name: 'delegate', args: JSON.stringify({ task }), output: '' }] });
      replies.push(...reads.map((step) => ({ text: '', calls: step.calls })));
      replies.push({ text: answerFor(index, files), calls: [] });
      replies.push(...rest.map((step) => ({ text: step.text, calls: step.calls })));
    }
    replies.push({ text: turn.final, calls: [] });
  });
  return replies;
}

const noSummary: SummarizeFn = () => Promise.reject(new Error('the benchmark window is large enough that nothing is compacted'));

/** Replays the turns and returns the main session's peak context (measured after each model call, as the budget shows it). */
async function peakTokens(turns: readonly ScenarioTurn[], delegated: boolean, counter: TokenCounter, window: number): Promise<{ peak: number; subtasks: number; prunes: number; compactions: number }> {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'delegation-bench-'));
  const log = await SessionLog.create(nodePath.join(dir, 'session.jsonl'), {}, { lock: false });
  const outputs = new Map<string, ScenarioCall>();
  const model = replayModel(script(turns, delegated), outputs);
  const replayed = ['read_file', 'run_command', 'edit_file'].map((name) => replayTool(name, outputs));
  const workspace = nodeWorkspaceAccess([dir], { trusted: true, confirm: () => Promise.resolve(true) });
  const settings = defaultSettings();
  const shared = { model, modelId: 'claude-opus-4-5', workspace, settings, contextWindow: window, counter };
  let children = 0;
  const createChild = async (): Promise<ChildSession> => {
    const child = await SessionLog.create(nodePath.join(dir, `child-${children++}.jsonl`), {}, { lock: false });
    const engine = new SessionEngine<never>();
    return { id: child.header.id, log: child, beginRequest: (signal) => engine.beginRequest(signal), summarize: noSummary };
  };
  const delegate = subagentDelegate({ createChild, parent: shared, tools: [replayed[0] as Tool] });
  const tools = [...builtinTools().filter((tool) => !['read_file', 'run_command', 'edit_file'].includes(tool.definition.function.name)), ...replayed, ...(delegated ? [delegateTool(delegate)] : [])];
  const registry = new ToolRegistry(tools);
  const cache = new CountCache();
  let peak = 0;
  let prunes = 0;
  let compactions = 0;
  try {
    for (const turn of turns) {
      for await (const event of runAgent({ ...shared, log, registry, cache, summarize: noSummary, signal: new AbortController().signal, userText: turn.user })) {
        if (event.type === 'usage') peak = Math.max(peak, event.budget.used);
        if (event.type === 'error') throw new Error(`the delegation benchmark's replay failed: ${event.message}`);
        if (event.type === 'prune') prunes++;
        if (event.type === 'compaction') compactions++;
      }
    }
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { peak, subtasks: children, prunes, compactions };
}

export async function delegationBench(counter: TokenCounter, quick: boolean): Promise<BenchRow[]> {
  const turns = toolHeavyTurns(quick ? 8 : 20);
  const window = 1_000_000;
  const without = await peakTokens(turns, false, counter, window);
  const withDelegation = await peakTokens(turns, true, counter, window);
  const ratio = without.peak > 0 ? withDelegation.peak / without.peak : null;
  return [
    row({
      key: 'delegation.peakRatio',
      label: '11. main context peak, exploration delegated / not (tool-heavy)',
      value: ratio,
      unit: '×',
      target: '< 1',
      met: ratio !== null && ratio < 1,
      detail: `peak ${withDelegation.peak.toLocaleString('en-US')} vs ${without.peak.toLocaleString('en-US')} tokens over ${turns.length} tool-heavy turns at a ${window.toLocaleString('en-US')}-token window (measured by measureContext after each model call; automatic prunes ${without.prunes} vs ${withDelegation.prunes}, compactions ${without.compactions} vs ${withDelegation.compactions}); the read_file steps of each turn run in a sub-agent whose scripted answer (~60 tokens) is all the main context gets (${withDelegation.subtasks} sub-tasks, each in its own child session)`,
    }),
  ];
}

/** Row 11's paragraph of "What limits each row", with this run's figures. */
export function delegationLimits(rows: readonly BenchRow[]): string {
  const figure = figureOf(rows);
  return `11. **Delegation (${verdictOf(rows)('delegation.peakRatio')}: the main context peaks at ${figure('delegation.peakRatio')} of its size when each turn's file reads run in a sub-agent):** a replay, not a model: \`bench/delegationBench.ts\` runs the seeded tool-heavy turns through the real agent loop twice, once as recorded and once with each turn's \`read_file\` steps moved into one \`delegate\` call, whose child session replays those reads and answers with a fixed ~60-token sentence; \`run_command\` and \`edit_file\` steps stay in the main context (the child is read-only). The ratio therefore depends on how much of a session is reading and on the answer size a real model would write; what it shows is that the child's reads never reach the parent's context.`;
}
