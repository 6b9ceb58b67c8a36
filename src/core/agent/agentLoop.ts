// The agent loop: model call, tool calls, repeat; with budget checks, overflow recovery and a consistent log on cancel.
import { withImageData } from '../context/userImages';
import { restoreNotice } from '../checkpoints/fileCheckpoints';
import type { CommandSnapshots } from '../checkpoints/commandSnapshots';
import { buildContext } from '../context/contextBuilder';
import type { DoneEvent, ModelError, ModelStream } from '../llm/modelStream';
import type { AssistantEntry, UserAttachment, UserEntry, UserImage } from '../session/entries';
import type { Settings } from '../settings/settings';
import type { Calibration, ReportVerdict } from '../budget/calibration';
import { judgeReport } from '../budget/calibration';
import { boundedWindow } from '../llm/contextWindow';
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext, requestOutputTokens } from '../budget/meter';
import type { CountCache } from '../tokens/countCache';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { ToolLimits } from '../tools/toolTypes';
import { DEFAULT_TOOL_LIMITS } from '../tools/toolTypes';
import type { WorkspaceAccess } from '../tools/workspaceAccess';
import type { AgentEvent, AskRestoredBranch, DoneReason, ReviewCompaction } from './agentEvents';
import type { AgentLog } from './agentLog';
import type { SummarizeFn } from '../compaction/compaction';
import type { GateState } from './contextGate';
import { autoCompact, newRequestProgress, prepareContext } from './contextGate';
import type { StepOutcome } from './modelStep';
import { modelStep } from './modelStep';
import { buildSystemPrompt } from './systemPrompt';
import type { ToolRunDeps } from './toolStep';
import { appendCancelledResults, runToolCalls } from './toolStep';

export const DEFAULT_MAX_STEPS = 50;

export interface AgentOptions {
  log: AgentLog;
  model: ModelStream;
  modelId: string;
  registry: ToolRegistry;
  workspace: WorkspaceAccess;
  settings: Settings;
  contextWindow: number;
  /** False when the window is an assumption (no source told us); default true. */
  windowKnown?: boolean;
  /** The most output tokens the model accepts, when its listing says so. */
  maxOutputTokens?: number;
  counter: TokenCounter;
  cache: CountCache;
  calibration?: Calibration;
  summarize: SummarizeFn;
  /** Asked when a compaction needs a person (review mode "always", or a summary that failed validation). */
  review?: ReviewCompaction;
  /** Asked in place when a call on a branch restored before a compaction would not fit (else the request stops). */
  askRestoredBranch?: AskRestoredBranch;
  signal: AbortSignal;
  /** Appended as the user's message first; omit to continue from the current leaf. */
  userText?: string;
  /** Files and selections the user attached to that message (already capped, see userAttachments.ts). */
  userAttachments?: UserAttachment[];
  /** Images the user attached to that message, stored in the blob store (see userImages.ts). */
  userImages?: UserImage[];
  systemPrompt?: string;
  systemRole?: 'system' | 'developer';
  maxSteps?: number;
  /**
   * Told when an overflow error names a window smaller than the one assumed, or when the server kept only
   * part of a prompt (to remember it across sessions).
   */
  onContextWindowLearned?: (window: number, how: WindowEvidence) => void;
  /** The server drops the oldest messages of a prompt longer than its window instead of refusing it (Ollama). */
  serverTruncates?: boolean;
  /** How to raise this server's window, said when it truncated a prompt. */
  raiseWindowHint?: string;
  /** Snapshots the workspace around each run_command, so Restore Checkpoint can put back what it changed. */
  commandSnapshots?: CommandSnapshots;
  /**
   * Asked once per request, after the first reply, when given: the window is unknown (a model the server loaded for
   * that request, a deployment whose model the reply names) or was read before the model was loaded. The window now
   * known, used from the next call on (a known one only when smaller).
   */
  windowAfterReply?: (done: DoneEvent) => Promise<number | undefined>;
}

/** What taught a window: a refusal that named it, or a prompt the server shortened to fit it. */
export type WindowEvidence = 'overflow' | 'truncation';

/** The tool settings with the output cap the window's thresholds chose (settings say 0 = scale). */
function toolSettings(settings: Settings, measured: MeasuredContext): Settings['tools'] {
  return { ...settings.tools, outputMaxChars: measured.thresholds.toolOutputChars, outputMaxLines: measured.thresholds.toolOutputLines };
}

function toolLimits(tools: Settings['tools']): ToolLimits {
  // Pages of read_stored_output stay below the inline cap so reading back is never capped again.
  return {
    ...DEFAULT_TOOL_LIMITS,
    commandTimeoutMs: tools.commandTimeoutSeconds * 1000,
    pageChars: Math.floor(tools.outputMaxChars * 0.8),
    pageLines: Math.floor(tools.outputMaxLines * 0.8),
  };
}

function countingDeps(options: AgentOptions): CountingDeps {
  const tools = options.registry.definitions();
  const systemPrompt =
    options.systemPrompt ?? buildSystemPrompt({ toolNames: options.registry.names(), workspaceRoots: options.workspace.roots() });
  return { ...options, tools, systemPrompt, systemRole: options.systemRole ?? 'system' };
}

/** Appends what an aborted or failed call streamed (text only, plus complete tool calls that get cancelled results). */
async function appendPartial(options: AgentOptions, outcome: StepOutcome, tools: Settings['tools']): Promise<AssistantEntry | undefined> {
  const partial =
    outcome.kind === 'aborted'
      ? { text: outcome.text, toolCalls: outcome.toolCalls, reasoning: outcome.reasoning, stopReason: 'aborted' as const }
      : outcome.kind === 'error'
        ? { text: outcome.error.partial.text, toolCalls: [], reasoning: '', stopReason: 'error' as const, error: outcome.error.error.message }
        : undefined;
  if (!partial || (partial.text === '' && partial.toolCalls.length === 0)) return undefined;
  const { reasoning, ...fields } = partial;
  const entry = (await options.log.append({ type: 'assistant', ...fields, ...(reasoning ? { reasoning } : {}), model: options.modelId })) as AssistantEntry;
  await appendCancelledResults(options.log, partial.toolCalls, tools);
  return entry;
}

interface LoopState {
  gate: GateState;
  deps: CountingDeps;
  steps: number;
  overflowRecoveries: number;
  /** Most output tokens the next call may ask for, after the server refused a prompt + reply that did not fit. */
  outputCeiling?: number;
  /** A compaction was made in this request because the server refused a prompt. */
  compactedForOverflow?: boolean;
  /** Every call this request made (name and arguments): a repeated one is no progress. */
  calls: Set<string>;
  /** The user was told this request that the server truncated a prompt. */
  toldTruncation?: boolean;
  /** The window was asked for after a reply this request (windowAfterReply). */
  askedWindow?: boolean;
}

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

function autoOffMessage(used: number, usable: number): string {
  return `The context is full (${used.toLocaleString('en-US')} of ${usable.toLocaleString('en-US')} usable tokens) and automatic compaction is off (compactionAgent.compaction.auto). Run /compact or /prune, or turn automatic compaction on.`;
}

/** After a refusal: retry (room was made or only the reply room was wrong), the compaction said why it could not help, or nothing could be compacted. */
type Recovery = 'retry' | 'reported' | 'nothing';

/**
 * A refused prompt teaches what the meter lacked: the server's own count of this very prompt and its
 * window, when the error names them. When the server's count of the prompt is below its window, only the
 * room asked for the reply was wrong and the call is retried with less (never the same amount again);
 * else the context is compacted.
 */
async function* recoverFromOverflow(options: AgentOptions, state: LoopState, error: ModelError, measured: MeasuredContext): AsyncGenerator<AgentEvent, Recovery> {
  if (error.promptTokens !== undefined) options.calibration?.observe({ reported: error.promptTokens, ...measured.raw }, error.contextWindow);
  const requested = requestOutputTokens(measured, state.deps);
  // The endpoint's own figure wins from now on; without one, what was just asked for is an upper bound of the real window.
  // A named window outside the settings' bounds ("maximum context length is 10 tokens") is garbage, not evidence.
  const named = boundedWindow(error.contextWindow);
  // The retry asks for less reply room than the refused call, whatever the meter now thinks.
  state.outputCeiling = Math.max(MIN_RETRY_OUTPUT, Math.min(requested - 1, error.promptTokens !== undefined && named !== undefined ? named - error.promptTokens - 16 : requested - 1));
  const window = named ?? measured.budget.used + requested;
  if (window < state.deps.contextWindow) {
    state.deps.contextWindow = window;
    // Only a window the server named is worth keeping; the upper bound above is a guess for this request.
    if (named !== undefined) options.onContextWindowLearned?.(named, 'overflow');
  }
  // The server's count of this prompt is the truth: only when it says the prompt itself fit was the reply room the problem.
  const promptFit = error.promptTokens !== undefined && named !== undefined && error.promptTokens < named;
  const again = measureContext(options.log.path(), state.deps);
  if (promptFit && again.budget.used <= again.budget.usable) return 'retry';
  const outcome = yield* autoCompact(state.gate, 'overflow');
  if (outcome === 'compacted') {
    state.compactedForOverflow = true;
    return 'retry';
  }
  if (outcome === 'pruned') return 'retry';
  return outcome === 'failed' ? 'reported' : 'nothing';
}

/** Fewest output tokens a retry after a refusal asks for. */
const MIN_RETRY_OUTPUT = 64;

/** What the chat says when the server refused the prompt as too long and recovery could not help; one clear thing. */
function overflowMessage(state: LoopState, error: ModelError): string {
  if (state.compactedForOverflow) return `The conversation is too long for the model's context window even after compacting (${error.message}). Try /compact with instructions to keep less, or a model with a larger window.`;
  return `The model's server refused the prompt as too long for its context window (${error.message}), and nothing older could be compacted. Prune old tool outputs (/prune), start a new session (/new), or use a model with a larger window.`;
}

/** A call that did not complete: record what streamed, then retry once after compacting on overflow, or stop. */
async function* handleFailedStep(
  options: AgentOptions,
  state: LoopState,
  outcome: StepOutcome,
  measured: MeasuredContext,
): AsyncGenerator<AgentEvent, DoneReason | 'retry'> {
  const sentTokens = measured.budget.used;
  const partial = await appendPartial(options, outcome, toolSettings(options.settings, measured));
  if (partial) yield { type: 'message', entry: partial };
  if (outcome.kind !== 'error') return 'aborted';
  const error = outcome.error.error;
  if (error.kind === 'overflow' && !options.settings.compaction.auto) {
    yield { type: 'error', error, message: autoOffMessage(sentTokens, state.deps.contextWindow) };
    return 'error';
  }
  if (error.kind === 'overflow' && state.overflowRecoveries === 0 && !partial) {
    state.overflowRecoveries++;
    const recovery = yield* recoverFromOverflow(options, state, error, measured);
    if (recovery === 'retry') return 'retry';
    // The compaction already said, in one message, why it could not make room (a restored branch, say).
    if (recovery === 'reported') return 'error';
  }
  yield { type: 'error', error, message: error.kind === 'overflow' ? overflowMessage(state, error) : error.message };
  return 'error';
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
