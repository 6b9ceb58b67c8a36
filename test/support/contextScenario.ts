// Replays a workload turn by turn through the real agent loop against a simulated server, and checks what the meter promises.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import { runAgent } from '../../src/core/agent/agentLoop';
import { buildSystemPrompt } from '../../src/core/agent/systemPrompt';
import { Calibration } from '../../src/core/budget/calibration';
import { measureContext, type CountingDeps } from '../../src/core/budget/meter';
import { thresholdsFor } from '../../src/core/budget/thresholds';
import { modelSummarizer } from '../../src/core/compaction/summarizer';
import { REQUIRED_HEADINGS } from '../../src/core/compaction/summaryPrompt';
import type { ModelStream } from '../../src/core/llm/modelStream';
import { defaultSettings, type Settings } from '../../src/core/settings/settings';
import { SessionLog } from '../../src/core/session/sessionLog';
import { CountCache } from '../../src/core/tokens/countCache';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { builtinTools, ToolRegistry } from '../../src/core/tools/toolRegistry';
import type { Tool } from '../../src/core/tools/toolTypes';
import type { ScriptedReply } from './agentFakes';
import { recordingAccess } from './agentWorkspace';
import { simulatedServer, type ServerShape } from './simulatedServer';

export interface ScenarioCall {
  name: string;
  /** The call's arguments as JSON text. */
  args: string;
  output: string;
  isError?: boolean;
}

export interface ScenarioStep {
  text: string;
  calls: ScenarioCall[];
}

export interface ScenarioTurn {
  user: string;
  steps: ScenarioStep[];
  final: string;
}

export interface ScenarioOptions {
  /** The chat model's id (decides our tokenizer and whether counts are exact). */
  model: string;
  server: ServerShape;
  turns: readonly ScenarioTurn[];
  settings?: Settings;
}

export interface ScenarioResult {
  /** Every error the user would have seen in the chat. */
  errors: string[];
  /** Compactions started because the server refused a prompt. */
  reactive: number;
  compactions: number;
  prunes: number;
  requests: number;
  refusals: number;
  /** Broken promises: a compaction where pruning would have sufficed, a kept part over budget, a prompt + max_tokens over the window. */
  violations: string[];
}

/** A valid summary of roughly `tokens` tokens in the required sections (the real summarizer adds the appendix). */
function fixedSummary(tokens: number): string {
  const filler = 'The agent read the files named in the ledger and fixed what the user asked; details follow. ';
  const body = filler.repeat(Math.max(1, Math.floor(tokens / 20 / REQUIRED_HEADINGS.length)));
  return REQUIRED_HEADINGS.map((heading) => `${heading}\n${heading === '## Next steps' ? '- Continue with the next request.' : body}`).join('\n\n');
}

/** The summarizing model: always answers with a fixed-size valid summary, like a well-behaved model would. */
function summaryModel(size: number): ModelStream {
  return {
    async *stream(request) {
      await Promise.resolve();
      const text = fixedSummary(Math.min(size, Math.floor((request.maxOutputTokens ?? size) * 0.8)));
      yield { type: 'done', text, toolCalls: [], invalidArguments: [], stopReason: 'stop' };
    },
  };
}

/** Replay tools: each returns the recorded output of the call the model made (by call id), through the real capping. */
function replayTools(turns: readonly ScenarioTurn[], outputs: Map<string, ScenarioCall>): Tool[] {
  const names = new Set(turns.flatMap((turn) => turn.steps.flatMap((step) => step.calls.map((call) => call.name))));
  const replay = [...names].map((name): Tool => ({
    definition: { type: 'function', function: { name, description: `Recorded ${name} tool`, parameters: { type: 'object', properties: { path: { type: 'string' }, command: { type: 'string' } } } } },
    execute: (_args, context) => {
      const call = outputs.get(context.toolCallId);
      return Promise.resolve(call ? { text: call.output, isError: call.isError ?? false } : { text: 'no recorded output', isError: true });
    },
  }));
  return [...builtinTools().filter((tool) => !names.has(tool.definition.function.name)), ...replay];
}

/**
 * Keeps a recorded reply inside what the model could write here: at most max_tokens, and at most a quarter
 * of the window's usable budget (a model at an 8k window writes smaller steps than the 16 edits, 5k tokens,
 * one real reply holds; no context manager can keep such a reply and still send the next step).
 */
export function withinOutput(step: ScenarioStep, maxOutputTokens: number, usable: number, counter: TokenCounter): ScenarioStep {
  const budget = Math.max(64, Math.min(maxOutputTokens - 32, Math.floor(usable / 4)));
  const share = budget / (step.calls.length + 1);
  const cost = (text: string): number => counter.countText(text);
  const cut = (text: string): string => (cost(text) <= share ? text : text.slice(0, Math.max(20, Math.floor((text.length * share) / cost(text)))));
  const calls = step.calls.map((call) => (cost(call.args) <= share ? call : { ...call, args: JSON.stringify({ path: 'file.txt', content: cut(call.args) }) }));
  return { text: cut(step.text), calls };
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'context-scenario-'));
  const log = await SessionLog.create(nodePath.join(dir, 'session.jsonl'), {}, { lock: false });
  const counter = await TokenCounter.create(options.model);
  const cache = new CountCache();
  const calibration = new Calibration(options.model);
  const settings = options.settings ?? defaultSettings();
  const outputs = new Map<string, ScenarioCall>();
  const registry = new ToolRegistry(replayTools(options.turns, outputs));
  const workspace = recordingAccess(dir).access;
  const systemPrompt = buildSystemPrompt({ toolNames: registry.names(), workspaceRoots: [dir] });
  const result: ScenarioResult = { errors: [], reactive: 0, compactions: 0, prunes: 0, requests: 0, refusals: 0, violations: [] };
  let turn: ScenarioTurn = options.turns[0] as ScenarioTurn;
  let stepIndex = 0;
  const server = simulatedServer(counter, options.server, (index, request): ScriptedReply => {
    const step = turn.steps[stepIndex++];
    const room = request.maxOutputTokens ?? 4096;
    if (!step) return { text: turn.final };
    const fitted = withinOutput(step, room, thresholdsFor(options.server.window, settings).usable, counter);
    fitted.calls.forEach((call, i) => outputs.set(`call_${index}_${i}`, call));
    return { text: fitted.text, toolCalls: fitted.calls.map((call) => ({ name: call.name, rawArguments: call.args })) };
  });
  const deps = (): CountingDeps => ({ counter, cache, calibration, settings, contextWindow: options.server.window, systemPrompt, systemRole: 'system', tools: registry.definitions() });
  const observe = (event: AgentEvent): void => {
    if (event.type === 'error') result.errors.push(event.message);
    if (event.type === 'prune') result.prunes++;
    if (event.type === 'compactionStart') {
      if (event.reason === 'overflow') result.reactive++;
      const measured = measureContext(log.path(), deps());
      if (event.reason === 'threshold' && settings.pruning.enabled && measured.thresholds.autoPrune && measured.prune.tokensFreed > 0 && measured.budget.used - measured.prune.tokensFreed <= measured.budget.usable) {
        result.violations.push(`turn ${options.turns.indexOf(turn)}: compacted although pruning ${measured.prune.tokensFreed} tokens would have sufficed`);
      }
    }
    if (event.type === 'compaction') {
      result.compactions++;
      const after = measureContext(log.path(), deps());
      if (after.budget.used > after.budget.usable) result.violations.push(`turn ${options.turns.indexOf(turn)}: after compacting, ${after.budget.used} tokens exceed the usable ${after.budget.usable}`);
    }
  };
  try {
    for (const next of options.turns) {
      turn = next;
      stepIndex = 0;
      const summarize = modelSummarizer({ model: summaryModel(600), counter, summaryWindow: options.server.window, path: () => log.path() });
      const events = runAgent({ log, model: server, modelId: options.model, registry, workspace, settings, contextWindow: options.server.window, counter, cache, calibration, summarize, signal: new AbortController().signal, userText: turn.user, systemPrompt });
      for await (const event of events) observe(event);
    }
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
  result.requests = server.prompts.length;
  result.refusals = server.refusals;
  return result;
}
