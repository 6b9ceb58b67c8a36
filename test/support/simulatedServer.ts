// A model stream that behaves like a real OpenAI-compatible server of a given window: its own token counts, usage reports, and refusals.
import type { ChatToolDefinition } from '../../src/core/context/chatMessage';
import type { ChatRequest, ModelStream, StreamEvent } from '../../src/core/llm/modelStream';
import { contextWindowFromError, promptTokensFromError } from '../../src/core/llm/overflowPatterns';
import type { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { scriptedModel, type ScriptStep } from './agentFakes';

export interface ServerShape {
  window: number;
  /** How the server counts message content relative to o200k (1.25: a tokenizer 25 % less efficient). */
  contentFactor: number;
  /** How it renders tool definitions: 'openai' (the compact namespace) or 'json' (a chat template printing the schemas). */
  tools: 'openai' | 'json';
}

export interface SimulatedServer extends ModelStream {
  requests: ChatRequest[];
  /** Prompt sizes the server counted, one per request it accepted or refused. */
  prompts: number[];
  /** Requests refused because prompt + max_tokens exceeded the window. */
  refusals: number;
}

function jsonTools(counter: TokenCounter, tools: readonly ChatToolDefinition[]): number {
  if (tools.length === 0) return 0;
  // A template such as Qwen's or Llama 3.1's: a header, then each schema as JSON on its own line.
  return counter.countText(`# Tools\n<tools>\n${tools.map((tool) => JSON.stringify(tool)).join('\n')}\n</tools>`) + 12;
}

/** What the server counts for a request's prompt. */
export function serverPromptTokens(counter: TokenCounter, shape: ServerShape, request: ChatRequest): number {
  const content = counter.countMessages(request.messages);
  const tools = shape.tools === 'json' ? jsonTools(counter, request.tools ?? []) : counter.countTools(request.tools ?? []);
  return Math.round(content * shape.contentFactor) + tools;
}

/**
 * Replays the script like scriptedModel, but first counts the prompt as the server would: a prompt whose
 * size plus max_tokens exceeds the window is refused with vLLM's overflow message (HTTP 400), and every
 * answer reports the server's prompt count as usage, as real servers do.
 */
export function simulatedServer(counter: TokenCounter, shape: ServerShape, script: readonly ScriptStep[] | ((index: number, request: ChatRequest) => ScriptStep)): SimulatedServer {
  const prompts: number[] = [];
  const accepted: ScriptStep[] = [];
  const replay = scriptedModel(accepted);
  const server: SimulatedServer = {
    requests: replay.requests,
    prompts,
    refusals: 0,
    async *stream(request, signal): AsyncGenerator<StreamEvent> {
      const prompt = serverPromptTokens(counter, shape, request);
      prompts.push(prompt);
      const output = request.maxOutputTokens ?? 0;
      if (prompt + output > shape.window) {
        server.refusals++;
        const message = `This model's maximum context length is ${shape.window} tokens. However, you requested ${prompt + output} tokens (${prompt} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`;
        // The client reads what the server said the way it reads every real error.
        const said = { contextWindow: contextWindowFromError(message), promptTokens: promptTokensFromError(message) };
        yield { type: 'error', error: { kind: 'overflow', message, retryable: false, ...said }, partial: { text: '', toolCalls: [] } };
        return;
      }
      const index = accepted.length;
      const step = typeof script === 'function' ? script(index, request) : script[index];
      accepted.push((req, i) => {
        const reply = typeof step === 'function' ? step(req, i) : (step ?? { text: 'done' });
        return { ...reply, usage: reply.usage ?? { promptTokens: prompt, completionTokens: Math.ceil((reply.text?.length ?? 0) / 4) + 1 } };
      });
      yield* replay.stream(request, signal);
    },
  };
  return server;
}
