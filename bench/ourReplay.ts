// Replays a workload through our real context policy (runAgent, default settings) and records every request as sent.
import { promises as fs, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import type { AgentEvent } from '../src/core/agent/agentEvents';
import { runAgent } from '../src/core/agent/agentLoop';
import { buildSystemPrompt } from '../src/core/agent/systemPrompt';
import { Calibration } from '../src/core/budget/calibration';
import { thresholdsFor } from '../src/core/budget/thresholds';
import { modelSummarizer } from '../src/core/compaction/summarizer';
import type { ChatToolDefinition } from '../src/core/context/chatMessage';
import { buildContext, SUMMARY_PREFIX } from '../src/core/context/contextBuilder';
import type { ModelStream, StreamEvent } from '../src/core/llm/modelStream';
import { contextWindowFromError, promptTokensFromError } from '../src/core/llm/overflowPatterns';
import type { ToolCall } from '../src/core/session/entries';
import { SessionLog } from '../src/core/session/sessionLog';
import { defaultSettings, type Settings } from '../src/core/settings/settings';
import { nodeFileIo, type FileIo } from '../src/core/storage/fileIo';
import { CountCache } from '../src/core/tokens/countCache';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { builtinTools, ToolRegistry } from '../src/core/tools/toolRegistry';
import type { Tool } from '../src/core/tools/toolTypes';
import { recordingAccess } from '../test/support/agentWorkspace';
import { withinOutput, type ScenarioCall, type ScenarioTurn } from '../test/support/contextScenario';
import type { ModelCall, PrefixCache } from './prefixCache';
import { commandOf, replyText, type CompactionSnapshot, type TraceItem } from './needRetention';
import { retentionAfter, type HistoryItem, type RetentionSample } from './retention';
import { standInSummary, turnPrefixStandIn } from './standInSummary';
import { OURS_SUMMARY_TOKENS, summaryLength } from './summaryLengths';

/** What one policy's replay of one workload produced. */
export interface ReplayOutcome {
  /** Every accepted request in order, main calls and summary calls interleaved. */
  calls: ModelCall[];
  /** Requests the server refused as too long (not billed). */
  refusals: number;
  compactions: number;
  prunes: number;
  errors: string[];
  retention: RetentionSample[];
  /** What entered the session, in order (the need-based retention's trace), with the command each reply ran. */
  trace: TraceItem[];
  commands: Array<string | null>;
  /** Every compaction: where in the trace, and the next context as summary text and kept text. */
  snapshots: Array<CompactionSnapshot & { contextTokens: number }>;
  /** Trace positions of recorded replies the policy never sent (a step dropped, or a turn stopped before it). */
  dropped: number[];
}

/** Appends one reply and its tool outputs to a trace; returns the reply's position. */
export function traceStep(outcome: ReplayOutcome, text: string, calls: ReadonlyArray<{ name: string; args: string; output: string }>): number {
  const position = outcome.trace.length;
  outcome.trace.push({ kind: 'reply', text: replyText(text, calls) });
  outcome.commands.push(calls.map((call) => commandOf(call.args)).find((command) => command !== null) ?? null);
  for (const call of calls) {
    outcome.trace.push({ kind: 'output', text: call.output });
    outcome.commands.push(null);
  }
  return position;
}

/** Appends a recorded reply the policy never sent: in the trace (later steps still used what it named), marked dropped. */
export function traceDropped(outcome: ReplayOutcome, text: string, calls: ReadonlyArray<{ name: string; args: string; output: string }>): void {
  outcome.dropped.push(traceStep(outcome, text, calls));
}

/** Appends a user request to a trace. */
export function traceUser(outcome: ReplayOutcome, text: string): void {
  outcome.trace.push({ kind: 'user', text });
  outcome.commands.push(null);
}

export interface OurReplay extends ReplayOutcome {
  /** The replies the model actually gave in this replay (fitted to the window): the peers replay the same ones. */
  fitted: ScenarioTurn[];
  systemPrompt: string;
  tools: readonly ChatToolDefinition[];
}

/** Time zero of a replayed session's entries (their times are the recorded seconds after it). */
const RECORDING_EPOCH = Date.UTC(2026, 0, 1);

/** The bench measures tokens, not durability: appends and blobs skip fsync. */
const fastIo: FileIo = {
  ...nodeFileIo,
  appendDurable: (path, text) => fs.appendFile(path, text),
  writeFileAtomic: (path, data) => fs.writeFile(path, data),
};

/** The model's tools with their real definitions, each answering with the recorded output of the call (by call id). */
function replayTools(turns: readonly ScenarioTurn[], outputs: Map<string, ScenarioCall>): Tool[] {
  const names = new Set(turns.flatMap((turn) => turn.steps.flatMap((step) => step.calls.map((call) => call.name))));
  const builtin = new Map(builtinTools().map((tool) => [tool.definition.function.name, tool] as const));
  const replay = [...names].map((name): Tool => ({
    definition: builtin.get(name)?.definition ?? { type: 'function', function: { name, description: `Recorded ${name} tool`, parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
    execute: (_args, context) => {
      const call = outputs.get(context.toolCallId);
      return Promise.resolve(call ? { text: call.output, isError: call.isError ?? false } : { text: 'no recorded output', isError: true });
    },
  }));
  return [...builtinTools().filter((tool) => !names.has(tool.definition.function.name)), ...replay];
}

export function replyTokens(counter: TokenCounter, text: string, calls: ReadonlyArray<{ name: string; args: string }>): number {
  return counter.countText(text) + calls.reduce((sum, call) => sum + counter.countText(call.name) + counter.countText(call.args), 0);
}

/** The summarizing model: a fixed-size valid summary (our summarizer adds the real appendix), recorded as a summary call. */
function summaryStandIn(calls: ModelCall[], counter: TokenCounter, clock: () => number): ModelStream {
  return {
    async *stream(request): AsyncGenerator<StreamEvent> {
      await Promise.resolve();
      const prefix = request.messages[0]?.content?.startsWith('You summarize the first steps') === true;
      const source = request.messages.slice(1).map((message) => message.content ?? '').join('\n');
      const text = prefix ? turnPrefixStandIn(source) : standInSummary(summaryLength(OURS_SUMMARY_TOKENS, request.maxOutputTokens ?? OURS_SUMMARY_TOKENS), source, (text) => counter.countText(text));
      calls.push({ kind: 'summary', messages: request.messages, tools: [], outputTokens: counter.countText(text), at: clock() });
      yield { type: 'done', text, toolCalls: [], invalidArguments: [], stopReason: 'stop' };
    },
  };
}

export interface OurOptions {
  settings?: Settings;
  /** Model calls allowed per request; the replay lifts our 50-call limit so the recorded turns run unsplit. */
  maxSteps?: number;
}

interface RunState {
  turn: ScenarioTurn;
  fitted: ScenarioTurn;
  step: number;
  /** Tool results of the last step served that are still to come. */
  pending: number;
  /** Stops the request: the recording's user stopped it after its last tool result (see closesWithoutReply). */
  stop: AbortController;
}

/**
 * The race's one closing-call rule: a user turn the recording ends without a reply of its own (its user stopped it,
 * or the recording ends there) is stopped after its last recorded tool result, for every policy: no policy makes a
 * model call the recording did not make.
 */
export function closesWithoutReply(turn: ScenarioTurn): boolean {
  return (turn as { finalCall?: boolean }).finalCall === false;
}

/**
 * Runs every turn through runAgent against a server of exactly `window` tokens that counts as our counter
 * does (gpt-4o: exact), refuses prompt + max_tokens over the window, and reports usage. Replies come from
 * the workload, fitted to the window; summaries from the stand-in through the real summarizer.
 */
export async function replayOurs(turns: readonly ScenarioTurn[], window: number, counter: TokenCounter, meter: PrefixCache, options: OurOptions = {}): Promise<OurReplay> {
  const settings = options.settings ?? defaultSettings();
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'cost-replay-'));
  // Entries carry the recorded times (the cache-aware trigger reads how long the session was idle).
  let now = 0;
  const log = await SessionLog.create(nodePath.join(dir, 'session.jsonl'), {}, { lock: false, io: fastIo, now: () => new Date(RECORDING_EPOCH + now * 1000) });
  const outputs = new Map<string, ScenarioCall>();
  const registry = new ToolRegistry(replayTools(turns, outputs));
  const systemPrompt = buildSystemPrompt({ toolNames: registry.names(), workspaceRoots: ['/workspace'] });
  const result: OurReplay = { calls: [], refusals: 0, compactions: 0, prunes: 0, errors: [], retention: [], trace: [], commands: [], snapshots: [], dropped: [], fitted: [], systemPrompt, tools: registry.definitions() };
  const history: HistoryItem[] = [];
  const usable = thresholdsFor(window, settings).usable;
  const state: RunState = { turn: turns[0] as ScenarioTurn, fitted: { user: '', steps: [], final: '' }, step: 0, pending: 0, stop: new AbortController() };
  let index = 0;
  const timeOf = (turn: ScenarioTurn, step: number): number => {
    const times = (turn as { times?: number[] }).times;
    now = times?.[step] !== undefined ? Math.max(now, times[step] ?? now) : now + 10;
    return now;
  };
  const server: ModelStream = {
    async *stream(request): AsyncGenerator<StreamEvent> {
      await Promise.resolve();
      const tools = request.tools ?? [];
      const prompt = meter.promptTokens(request.messages, tools);
      const room = request.maxOutputTokens ?? 0;
      if (prompt + room > window) {
        result.refusals++;
        const message = `This model's maximum context length is ${window} tokens. However, you requested ${prompt + room} tokens (${prompt} in the messages, ${room} in the completion). Please reduce the length of the messages or completion.`;
        yield { type: 'error', error: { kind: 'overflow', message, retryable: false, contextWindow: contextWindowFromError(message), promptTokens: promptTokensFromError(message) }, partial: { text: '', toolCalls: [] } };
        return;
      }
      const at = timeOf(state.turn, state.step);
      const recorded = state.turn.steps[state.step++];
      const step = recorded ? withinOutput(recorded, room || 4096, usable, counter) : { text: state.turn.final, calls: [] };
      if (recorded) state.fitted.steps.push(step);
      state.pending = step.calls.length;
      const toolCalls: ToolCall[] = step.calls.map((call, i) => ({ id: `call_${index}_${i}`, name: call.name, arguments: call.args }));
      step.calls.forEach((call, i) => outputs.set(`call_${index}_${i}`, call));
      index++;
      if (step.calls.length > 0) history.push({ kind: 'calls', calls: step.calls });
      const position = traceStep(result, step.text, step.calls);
      const output = replyTokens(counter, step.text, step.calls);
      result.calls.push({ kind: 'main', messages: request.messages, tools, outputTokens: output, at, position });
      const stopReason = toolCalls.length > 0 ? 'toolCalls' : 'stop';
      yield { type: 'done', text: step.text, toolCalls, invalidArguments: [], stopReason, usage: { promptTokens: prompt, completionTokens: output } };
    },
  };
  const cache = new CountCache();
  const calibration = new Calibration(counter.modelId);
  const observe = (event: AgentEvent): void => {
    if (event.type === 'toolEnd' && --state.pending === 0 && state.step >= state.turn.steps.length && closesWithoutReply(state.turn)) state.stop.abort();
    if (event.type === 'error') result.errors.push(event.message);
    if (event.type === 'prune') result.prunes++;
    if (event.type === 'compaction') {
      result.compactions++;
      const next = buildContext(log.path(), { systemPrompt }).messages;
      result.retention.push(retentionAfter(history, next));
      const summary = next.filter((message) => message.content?.startsWith(SUMMARY_PREFIX) === true);
      const kept = next.filter((message) => !summary.includes(message));
      const keptText = [JSON.stringify(result.tools), ...kept.map((message) => `${message.content ?? ''}\n${message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.arguments).join('\n') : ''}`)].join('\n');
      result.snapshots.push({ position: result.trace.length, summaryText: summary.map((message) => message.content ?? '').join('\n'), keptText, contextTokens: meter.promptTokens(next, result.tools) });
    }
  };
  const summarize = modelSummarizer({ model: summaryStandIn(result.calls, counter, () => now), counter, summaryWindow: window, path: () => log.path() });
  const workspace = recordingAccess(dir).access;
  try {
    for (const turn of turns) {
      state.turn = turn;
      state.step = 0;
      state.pending = 0;
      state.stop = new AbortController();
      // A turn recorded without any model call at all is only its request.
      if (turn.steps.length === 0 && closesWithoutReply(turn)) state.stop.abort();
      state.fitted = { user: turn.user, steps: [], final: turn.final };
      // The request arrives when its first call was made (the idle time before it is the recorded one).
      const first = (turn as { times?: number[] }).times?.[0];
      if (first !== undefined) now = Math.max(now, first);
      result.fitted.push(state.fitted);
      history.push({ kind: 'request', text: turn.user });
      traceUser(result, turn.user);
      const events = runAgent({ log, model: server, modelId: counter.modelId, registry, workspace, settings, contextWindow: window, counter, cache, calibration, summarize, signal: state.stop.signal, userText: turn.user, systemPrompt, maxSteps: options.maxSteps ?? Number.MAX_SAFE_INTEGER });
      for await (const event of events) observe(event);
      // The request stopped before the recording did: every recorded step not asked for is a loss.
      const asked = state.step;
      for (const step of turn.steps.slice(asked)) traceDropped(result, step.text, step.calls);
      if (asked <= turn.steps.length && !closesWithoutReply(turn)) traceDropped(result, turn.final, []);
    }
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
