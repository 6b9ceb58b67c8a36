// A model call that did not complete: what streamed is kept, and a prompt the server refused as too long is recovered from once (less reply room, or a compaction).
import type { MeasuredContext } from '../budget/meter';
import { measureContext, requestOutputTokens } from '../budget/meter';
import { boundedWindow } from '../llm/contextWindow';
import type { ModelError } from '../llm/modelStream';
import type { AssistantEntry } from '../session/entries';
import type { Settings } from '../settings/settings';
import type { AgentEvent, DoneReason } from './agentEvents';
import { toolSettings, type AgentOptions, type LoopState } from './agentOptions';
import { autoCompact } from './contextGate';
import type { StepOutcome } from './modelStep';
import { appendCancelledResults } from './toolStep';

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

/** With automatic compaction off, what the chat says when the context is full. */
export function autoOffMessage(used: number, usable: number): string {
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
export async function* handleFailedStep(
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
