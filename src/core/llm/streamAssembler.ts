// Folds Chat Completions stream chunks into events and the final message: text, reasoning, tool calls by index, usage.
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { StopReason, ToolCall, Usage } from '../session/entries';
import { isReportedCost } from '../session/entries';
import type { DoneEvent, StreamEvent } from './modelStream';

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
  started: boolean;
}

const FINISH_REASONS: Record<string, StopReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'toolCalls',
  function_call: 'toolCalls',
  content_filter: 'contentFilter',
};

/** Largest believable token count in a usage report: no model has a window past ten million. */
export const MAX_REPORTED_TOKENS = 10_000_000;

/** Longest model name kept from a chunk: real ones are short, a hostile one is ignored. */
const MAX_SERVED_MODEL_CHARS = 256;

function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_REPORTED_TOKENS;
}

/** Maps the wire usage object, including the provider-specific cache and cost fields, to the session's Usage. */
export function mapUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const record = raw as Record<string, unknown>;
  const prompt = record['prompt_tokens'];
  const completion = record['completion_tokens'];
  if (!isTokenCount(prompt) || !isTokenCount(completion)) return undefined;
  const usage: Usage = { promptTokens: prompt, completionTokens: completion };
  const details = record['prompt_tokens_details'];
  if (typeof details === 'object' && details !== null) {
    const cached = (details as Record<string, unknown>)['cached_tokens'];
    if (isTokenCount(cached) && cached <= prompt) usage.cachedTokens = cached;
    const written = (details as Record<string, unknown>)['cache_write_tokens'];
    if (isTokenCount(written) && written <= prompt) usage.cacheWriteTokens = written;
  }
  // OpenRouter's `cost`: USD charged for this call; a missing, negative, non-finite or absurd figure is dropped.
  const cost = record['cost'];
  if (isReportedCost(cost)) usage.cost = cost;
  return usage;
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export class StreamAssembler {
  private text = '';
  private reasoning = '';
  /** Calls in arrival order; `slots` maps a wire index to its current call (a new id at a used index is a new call). */
  private readonly calls = new Map<number, PartialCall>();
  private readonly slots = new Map<number, number>();
  private usage: Usage | undefined;
  private finishReason: string | undefined;
  private servedModel: string | undefined;

  /** True once anything the caller can see has streamed; retrying after that would duplicate output. */
  get hasOutput(): boolean {
    return this.text.length > 0 || this.reasoning.length > 0 || this.calls.size > 0;
  }

  get hasFinish(): boolean {
    return this.finishReason !== undefined;
  }

  /** Applies one chunk and returns the events it produces. */
  push(chunk: ChatCompletionChunk): StreamEvent[] {
    const events: StreamEvent[] = [];
    const usage = mapUsage(chunk.usage);
    if (usage) this.usage = usage;
    const model: unknown = chunk.model;
    if (this.servedModel === undefined && typeof model === 'string' && model !== '' && model.length <= MAX_SERVED_MODEL_CHARS) this.servedModel = model;
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== undefined && choice.index !== 0) continue;
      const delta = (choice.delta ?? {}) as Record<string, unknown>;
      if (typeof delta['content'] === 'string' && delta['content'] !== '') {
        this.text += delta['content'];
        events.push({ type: 'textDelta', text: delta['content'] });
      }
      // vLLM, llama.cpp and DeepSeek say reasoning_content; OpenRouter and Ollama say reasoning.
      const thinking = delta['reasoning_content'] ?? delta['reasoning'];
      if (typeof thinking === 'string' && thinking !== '') {
        this.reasoning += thinking;
        events.push({ type: 'reasoningDelta', text: thinking });
      }
      for (const call of choice.delta?.tool_calls ?? []) for (const event of this.pushToolCall(call)) events.push(event);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return events;
  }

  private pushToolCall(call: NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number]): StreamEvent[] {
    const wireIndex = typeof call.index === 'number' ? call.index : this.calls.size;
    let index = this.slots.get(wireIndex);
    let partial = index === undefined ? undefined : this.calls.get(index);
    // Some servers restart at index 0 for every call: a different id there is a different call, not more of the same.
    if (!partial || (call.id && partial.id && call.id !== partial.id)) {
      index = this.calls.size;
      partial = { id: '', name: '', arguments: '', started: false };
      this.calls.set(index, partial);
      this.slots.set(wireIndex, index);
    }
    index ??= this.calls.size - 1;
    if (call.id) partial.id = call.id;
    if (call.function?.name) partial.name += call.function.name;
    if (call.function?.arguments) partial.arguments += call.function.arguments;
    if (!partial.started && partial.name) {
      partial.started = true;
      // Some local servers omit the id; give the call a stable one so the tool result can refer to it.
      if (!partial.id) partial.id = `call_${index}`;
      return [{ type: 'toolCallStart', index, id: partial.id, name: partial.name }];
    }
    return [];
  }

  toolCalls(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id || `call_${index}`,
        name: call.name,
        // An empty argument string means "no arguments" for parameterless tools.
        arguments: call.arguments.trim() === '' ? '{}' : call.arguments,
      }));
  }

  partial(): { text: string; toolCalls: ToolCall[] } {
    return { text: this.text, toolCalls: this.toolCalls() };
  }

  /** The final message; call only when the stream finished or already has content. */
  done(): DoneEvent {
    const toolCalls = this.toolCalls();
    let stopReason: StopReason = (this.finishReason && FINISH_REASONS[this.finishReason]) || 'stop';
    // Servers disagree on finish_reason when tools are called; the calls themselves are what counts.
    if (stopReason === 'stop' && toolCalls.length > 0) stopReason = 'toolCalls';
    const event: DoneEvent = {
      type: 'done',
      text: this.text,
      toolCalls,
      invalidArguments: toolCalls.flatMap((call, index) => (isValidJson(call.arguments) ? [] : [index])),
      stopReason,
    };
    if (this.reasoning) event.reasoning = this.reasoning;
    if (this.usage) event.usage = this.usage;
    if (this.servedModel) event.servedModel = this.servedModel;
    return event;
  }
}
