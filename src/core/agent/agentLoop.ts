// The agent loop: model call, tool calls, repeat; with budget checks, what replies teach about the window, and a consistent log on cancel (a failed call: failedCall.ts).
import { withImageData } from '../context/userImages';
import { restoreNotice } from '../checkpoints/fileCheckpoints';
import { buildContext } from '../context/contextBuilder';
import type { DoneEvent } from '../llm/modelStream';
import type { AssistantEntry, UserEntry } from '../session/entries';
import type { ReportVerdict } from '../budget/calibration';
import { judgeReport } from '../budget/calibration';
import { boundedWindow } from '../llm/contextWindow';
import type { MeasuredContext } from '../budget/meter';
import { measureContext, requestOutputTokens } from '../budget/meter';
import type { AgentEvent, DoneReason } from './agentEvents';
import { countingDeps, DEFAULT_MAX_STEPS, toolLimits, toolSettings, type AgentOptions, type LoopState } from './agentOptions';
import type { GateState } from './contextGate';
import { newRequestProgress, prepareContext } from './contextGate';
import { autoOffMessage, handleFailedStep } from './failedCall';
import { modelStep } from './modelStep';
import type { ToolRunDeps } from './toolStep';
import { runToolCalls } from './toolStep';

/** What a request is given, and how many model calls it may make (the loop's public face with runAgent). */
export { DEFAULT_MAX_STEPS, type AgentOptions, type WindowEvidence } from './agentOptions';

/** A completed reply is progress when it answers, or calls something this request has not called before. */
function noteProgress(state: LoopState, done: DoneEvent): void {
  state.gate.request.steps++;
  if (done.toolCalls.length === 0) state.gate.request.progressed = true;
  for (const call of done.toolCalls) {
    const signature = `${call.name}\u0000${call.arguments}`;
    if (!state.calls.has(signature)) state.gate.request.progressed = true;
    state.calls.add(signature);
  }
}

/** Judges a usage report and, when believable, calibrates on it; a report that cannot be this prompt teaches nothing. */
function judgeUsage(options: AgentOptions, reported: number, measured: MeasuredContext): ReportVerdict {
  const window = measured.budget.windowKnown ? measured.budget.contextWindow : undefined;
  const context = { truncates: options.serverTruncates === true };
  if (options.calibration) return options.calibration.observe({ reported, ...measured.raw }, window, context);
  return judgeReport(reported, measured.countedPrompt, window, context);
}

/**
 * The server kept only `kept` tokens of this prompt: its window is at most about that. The window drops to
 * it (the next call compacts to fit), it is remembered, and the user is told once per request how to raise it.
 */
function* noteTruncation(options: AgentOptions, state: LoopState, kept: number, measured: MeasuredContext): Generator<AgentEvent> {
  const window = boundedWindow(kept);
  if (window !== undefined && window < state.deps.contextWindow) {
    state.deps.contextWindow = window;
    state.deps.windowKnown = true;
    options.onContextWindowLearned?.(window, 'truncation');
  }
  if (state.toldTruncation) return;
  state.toldTruncation = true;
  const hint = options.raiseWindowHint ?? 'raise the context length in the server\'s settings';
  const size = window !== undefined ? ` The window is now taken as ${window.toLocaleString('en-US')} tokens, and the context is compacted to fit it from the next request on.` : '';
  yield {
    type: 'notice',
    message: `The server kept only ${kept.toLocaleString('en-US')} tokens of a prompt we count at ${measured.countedPrompt.toLocaleString('en-US')}: it silently dropped the start of the conversation, so this reply may have missed it.${size} To give the model more room, ${hint}.`,
  };
}

/**
 * While the window is unknown, or was read before the server loaded the model, the first reply may show it (the
 * server loaded the model for it): asked once per request. A known window is only ever lowered by it.
 */
async function learnWindowAfterReply(options: AgentOptions, state: LoopState, done: DoneEvent): Promise<void> {
  if (state.askedWindow || !options.windowAfterReply) return;
  state.askedWindow = true;
  const window = boundedWindow(await options.windowAfterReply(done).catch(() => undefined));
  if (window === undefined || (state.deps.windowKnown !== false && window >= state.deps.contextWindow)) return;
  state.deps.contextWindow = window;
  state.deps.windowKnown = true;
}

/** Appends the completed reply and reports usage; returns the reply's entry. */
async function* recordReply(options: AgentOptions, state: LoopState, done: DoneEvent, measured: MeasuredContext): AsyncGenerator<AgentEvent, AssistantEntry> {
  const verdict = done.usage ? judgeUsage(options, done.usage.promptTokens, measured) : undefined;
  const entry = (await options.log.append({
    type: 'assistant',
    text: done.text,
    toolCalls: done.toolCalls,
    ...(done.reasoning ? { reasoning: done.reasoning } : {}),
    model: options.modelId,
    ...(done.usage ? { usage: done.usage } : {}),
    stopReason: done.stopReason,
  })) as AssistantEntry;
  state.steps++;
  state.overflowRecoveries = 0;
  state.outputCeiling = undefined;
  yield { type: 'message', entry };
  if (verdict && !verdict.believed && verdict.truncated) yield* noteTruncation(options, state, verdict.truncated.kept, measured);
  await learnWindowAfterReply(options, state, done);
  yield { type: 'usage', ...(done.usage ? { usage: done.usage } : {}), budget: measureContext(options.log.path(), state.deps).budget };
  return entry;
}

function toolRunDeps(options: AgentOptions, done: DoneEvent, measured: MeasuredContext): ToolRunDeps {
  const tools = toolSettings(options.settings, measured);
  return {
    log: options.log,
    registry: options.registry,
    workspace: options.workspace,
    limits: toolLimits(tools),
    settings: tools,
    signal: options.signal,
    invalidArguments: new Set(done.invalidArguments),
    ...(options.commandSnapshots ? { commandSnapshots: options.commandSnapshots } : {}),
  };
}

/** One model call and its tool calls; returns a reason to stop, or 'next' to call the model again. */
async function* step(options: AgentOptions, state: LoopState): AsyncGenerator<AgentEvent, DoneReason | 'next'> {
  const measured = yield* prepareContext(state.gate);
  if (options.signal.aborted) return 'aborted';
  if (measured === 'stop') return 'error';
  if (!options.settings.compaction.auto && measured.budget.used > measured.budget.usable) {
    // With automatic compaction off, sending would only overflow: stop and say how to make room.
    yield { type: 'error', message: autoOffMessage(measured.budget.used, measured.budget.usable) };
    return 'error';
  }
  const built = buildContext(measured.path, { systemPrompt: state.deps.systemPrompt, systemRole: state.deps.systemRole }).messages;
  const messages = await withImageData(built, options.log.blobs);
  const maxOutputTokens = Math.min(requestOutputTokens(measured, state.deps), state.outputCeiling ?? Number.POSITIVE_INFINITY);
  const outcome = yield* modelStep(options.model, { messages, tools: [...state.deps.tools], maxOutputTokens }, options.signal);
  if (outcome.kind !== 'done') {
    const result = yield* handleFailedStep(options, state, outcome, measured);
    return result === 'retry' ? 'next' : result;
  }
  yield* recordReply(options, state, outcome.done, measured);
  noteProgress(state, outcome.done);
  if (outcome.done.toolCalls.length === 0) return 'finished';
  const cancelled = yield* runToolCalls(outcome.done.toolCalls, toolRunDeps(options, outcome.done, measured));
  return cancelled ? 'aborted' : 'next';
}

/**
 * Runs one user request to the end. Events describe everything appended; the generator never throws for
 * model or tool failures (they become error events), and on cancel the log is left with no dangling calls.
 */
export async function* runAgent(options: AgentOptions): AsyncGenerator<AgentEvent, DoneReason> {
  const deps = countingDeps(options);
  const gate: GateState = {
    log: options.log,
    deps,
    summarize: options.summarize,
    review: options.review,
    ...(options.askRestoredBranch ? { askRestoredBranch: options.askRestoredBranch } : {}),
    signal: options.signal,
    modelId: options.modelId,
    request: newRequestProgress(),
  };
  const state: LoopState = { gate, deps, steps: 0, overflowRecoveries: 0, calls: new Set() };
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  let userEntry: UserEntry | undefined;
  if (options.userText !== undefined) {
    const restored = restoreNotice(options.log.path());
    const attached = [...(restored ? [restored] : []), ...(options.userAttachments ?? [])];
    const attachments = attached.length > 0 ? { attachments: attached } : {};
    const images = options.userImages?.length ? { images: options.userImages } : {};
    userEntry = (await options.log.append({ type: 'user', text: options.userText, ...attachments, ...images })) as UserEntry;
  }
  // The turn's workspace snapshot runs beside the first model call (see CommandSnapshots.turnStarted).
  if (userEntry && options.workspace.isTrusted()) void options.commandSnapshots?.turnStarted(userEntry.id, { store: options.log.blobs, maxBytes: options.settings.tools.snapshotMaxBytes });
  yield { type: 'turnStart', ...(userEntry ? { userEntry } : {}) };
  let reason: DoneReason | 'next' = 'next';
  while (reason === 'next') {
    if (options.signal.aborted) reason = 'aborted';
    else if (state.steps >= maxSteps) {
      yield { type: 'error', message: `Stopped after ${maxSteps} model calls in one request (the step limit). Send a message to continue.` };
      reason = 'maxSteps';
    } else reason = yield* step(options, state);
  }
  yield { type: 'done', reason, steps: state.steps };
  return reason;
}
