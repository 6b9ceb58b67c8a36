// One model call: forwards the stream's deltas as agent events and returns how the call ended.
import type { ChatRequest, DoneEvent, ErrorEvent, ModelStream } from '../llm/modelStream';
import type { ToolCall } from '../session/entries';
import type { AgentEvent } from './agentEvents';

export type StepOutcome =
  | { kind: 'done'; done: DoneEvent }
  | { kind: 'error'; error: ErrorEvent }
  /** Cancelled by the user; what streamed so far. */
  | { kind: 'aborted'; text: string; reasoning: string; toolCalls: ToolCall[] };

function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A call sent without an id gets one from its place in the reply, so its result can name it (ids may still repeat:
 * every later step knows a call by its place, never by its id).
 */
function withIds(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((call, index) => (call.id === '' ? { ...call, id: `call_${index}` } : call));
}

/** Tool calls that streamed completely; a cancelled stream may have cut the last one's arguments short. */
function completeToolCalls(calls: readonly ToolCall[]): ToolCall[] {
  return withIds(calls.filter((call) => call.name !== '' && isCompleteJson(call.arguments)));
}

export async function* modelStep(model: ModelStream, request: ChatRequest, signal: AbortSignal): AsyncGenerator<AgentEvent, StepOutcome> {
  let text = '';
  let reasoning = '';
  let terminal: DoneEvent | ErrorEvent | undefined;
  for await (const event of model.stream(request, signal)) {
    if (event.type === 'textDelta') {
      text += event.text;
      yield { type: 'textDelta', text: event.text };
    } else if (event.type === 'reasoningDelta') {
      reasoning += event.text;
      yield { type: 'reasoningDelta', text: event.text };
    } else if (event.type === 'retry') {
      yield { type: 'retry', attempt: event.attempt, delayMs: event.delayMs, reason: event.reason };
    } else if (event.type === 'done' || event.type === 'error') {
      terminal = event;
      break;
    }
  }
  if (signal.aborted || terminal?.type === 'error' && terminal.error.kind === 'aborted') {
    const partial = terminal?.type === 'error' ? terminal.partial : terminal?.type === 'done' ? terminal : undefined;
    return { kind: 'aborted', text: partial?.text || text, reasoning, toolCalls: completeToolCalls(partial?.toolCalls ?? []) };
  }
  if (!terminal) {
    const message = 'The model stream ended without a final event.';
    return { kind: 'error', error: { type: 'error', error: { kind: 'invalidResponse', message, retryable: true }, partial: { text, toolCalls: [] } } };
  }
  return terminal.type === 'done' ? { kind: 'done', done: { ...terminal, toolCalls: withIds(terminal.toolCalls) } } : { kind: 'error', error: terminal };
}
