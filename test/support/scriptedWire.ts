// The Chat Completions wire format the scripted endpoint replays: stream chunks, SSE framing, whole completions.
import type { ReplyStep, ScriptedToolCall, ScriptedUsage } from './scriptedSteps';

export interface WireContext {
  id: string;
  model: string;
  created: number;
}

type Json = Record<string, unknown>;

export function sse(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export function chunk(context: WireContext, delta: Json, finishReason: string | null = null): Json {
  return {
    id: context.id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

export function usageChunk(context: WireContext, usage: ScriptedUsage): Json {
  return {
    id: context.id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    choices: [],
    usage: wireUsage(usage),
  };
}

export function wireUsage(usage: ScriptedUsage): Json {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
    ...(usage.cost !== undefined ? { cost: usage.cost } : {}),
  };
}

export function splitText(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

export function callArguments(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

export function callId(call: ScriptedToolCall, index: number): string {
  return call.id ?? `call_${index}`;
}

/** The content chunks of a reply: role, reasoning, text pieces, then each tool call as id+name and argument fragments. */
export function replyChunks(context: WireContext, step: ReplyStep): Json[] {
  const size = step.chunkChars ?? 16;
  const chunks: Json[] = [chunk(context, { role: 'assistant', content: '' })];
  for (const piece of splitText(step.reasoning ?? '', size)) chunks.push(chunk(context, { reasoning_content: piece }));
  for (const piece of splitText(step.text ?? '', size)) chunks.push(chunk(context, { content: piece }));
  (step.toolCalls ?? []).forEach((call, index) => {
    chunks.push(
      chunk(context, {
        tool_calls: [{ index, id: callId(call, index), type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of splitText(callArguments(call), Math.max(1, Math.floor(size / 2)))) {
      chunks.push(chunk(context, { tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  return chunks;
}

export function finishReasonOf(step: ReplyStep): string {
  return step.finishReason ?? ((step.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
}

/** A whole non-streaming chat.completion. */
export function completion(context: WireContext, step: ReplyStep, usage: ScriptedUsage | undefined): Json {
  const calls = (step.toolCalls ?? []).map((call, index) => ({
    id: callId(call, index),
    type: 'function',
    function: { name: call.name, arguments: callArguments(call) },
  }));
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: step.text ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        logprobs: null,
        finish_reason: finishReasonOf(step),
      },
    ],
    ...(usage ? { usage: wireUsage(usage) } : {}),
  };
}

/** About 4 characters a token, like the usual rough estimate; good enough for scripted usage. */
export function autoUsage(requestBody: unknown, step: ReplyStep): ScriptedUsage {
  const body = typeof requestBody === 'object' && requestBody !== null ? (requestBody as Json) : {};
  const promptChars = JSON.stringify(body['messages'] ?? []).length + JSON.stringify(body['tools'] ?? []).length;
  const outputChars =
    (step.text ?? '').length + (step.reasoning ?? '').length + JSON.stringify(step.toolCalls ?? []).length;
  return { promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.max(1, Math.ceil(outputChars / 4)) };
}
