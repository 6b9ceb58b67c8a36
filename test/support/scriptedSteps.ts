// What the scripted endpoint can be told to do for one request: replies, and faults in the shapes of real servers.

export interface ScriptedUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  /** Sent as OpenRouter's `usage.cost` (USD); any value, so tests can send absurd ones. */
  cost?: unknown;
}

export interface ScriptedToolCall {
  /** Defaults to call_<n>. */
  id?: string;
  name: string;
  /** A string is sent verbatim (so it can be invalid JSON); an object is JSON-encoded. */
  arguments: string | Record<string, unknown>;
}

export interface ReplyStep {
  kind: 'reply';
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** 'auto' (the default) estimates from the request and reply size, about 4 characters a token. */
  usage?: ScriptedUsage | 'auto' | 'none';
  /** Defaults to tool_calls when there are calls, else stop. */
  finishReason?: string;
  /** Characters of text per delta chunk (default 16). */
  chunkChars?: number;
  /** Pause between chunks, for abort tests. */
  chunkDelayMs?: number;
}

/** An HTTP error response. */
export interface HttpFaultStep {
  kind: 'http';
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Streams `text` then destroys the connection. */
export interface ResetStep {
  kind: 'reset';
  text?: string;
}

/** Streams `text` then a chunk that is not JSON. */
export interface MalformedStep {
  kind: 'malformed';
  text?: string;
}

/** Streams `text` then [DONE] without any finish_reason. */
export interface NoFinishStep {
  kind: 'noFinish';
  text?: string;
}

/** Never answers (not even headers); or, with `text`, streams it and then goes silent. */
export interface HangStep {
  kind: 'hang';
  text?: string;
}

export type ScriptStep = ReplyStep | HttpFaultStep | ResetStep | MalformedStep | NoFinishStep | HangStep;

export function reply(text: string, extra: Partial<Omit<ReplyStep, 'kind' | 'text'>> = {}): ReplyStep {
  return { kind: 'reply', text, ...extra };
}

export function toolCalls(calls: ScriptedToolCall[], extra: Partial<Omit<ReplyStep, 'kind' | 'toolCalls'>> = {}): ReplyStep {
  return { kind: 'reply', toolCalls: calls, ...extra };
}

export type OverflowShape = 'openai' | 'azure' | 'openrouter' | 'vllm' | 'llamacpp' | 'lmstudio' | 'ollama' | 'anthropic';

/** Context-overflow error bodies as each server sends them (status 400 for all). */
export function overflowBody(shape: OverflowShape, window = 4096, requested = 5000): unknown {
  switch (shape) {
    case 'openai':
    case 'azure':
      return {
        error: {
          message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      };
    case 'openrouter':
      return {
        error: {
          message: `This endpoint's maximum context length is ${window} tokens. However, you requested about ${requested} tokens (${requested - 100} of text input, 100 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`,
          code: 400,
          metadata: { provider_name: null },
        },
      };
    case 'vllm':
      return {
        object: 'error',
        message: `This model's maximum context length is ${window} tokens. However, you requested ${requested} tokens (${requested - 100} in the messages, 100 in the completion). Please reduce the length of the messages or completion.`,
        type: 'BadRequestError',
        param: null,
        code: 400,
      };
    case 'llamacpp':
      return {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: requested,
          n_ctx: window,
        },
      };
    case 'lmstudio':
      return {
        error: `Trying to keep the first ${requested} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
      };
    case 'ollama':
      return { error: { message: 'the input length exceeds the context length', type: 'api_error', param: null, code: null } };
    case 'anthropic':
      return {
        error: { type: 'invalid_request_error', message: `prompt is too long: ${requested} tokens > ${window} maximum` },
      };
  }
}

export const faults = {
  rateLimited(retryAfterSeconds?: number, headers: Record<string, string> = {}): HttpFaultStep {
    return {
      kind: 'http',
      status: 429,
      headers: { ...(retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {}), ...headers },
      body: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
    };
  },
  serverError(status = 500): HttpFaultStep {
    return { kind: 'http', status, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error' } } };
  },
  unauthorized(message = 'Incorrect API key provided.'): HttpFaultStep {
    return { kind: 'http', status: 401, body: { error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } } };
  },
  overflow(shape: OverflowShape, window?: number, requested?: number): HttpFaultStep {
    return { kind: 'http', status: 400, body: overflowBody(shape, window, requested) };
  },
  reset(text?: string): ResetStep {
    return { kind: 'reset', ...(text !== undefined ? { text } : {}) };
  },
  malformed(text?: string): MalformedStep {
    return { kind: 'malformed', ...(text !== undefined ? { text } : {}) };
  },
  noFinish(text?: string): NoFinishStep {
    return { kind: 'noFinish', ...(text !== undefined ? { text } : {}) };
  },
  hang(text?: string): HangStep {
    return { kind: 'hang', ...(text !== undefined ? { text } : {}) };
  },
};
