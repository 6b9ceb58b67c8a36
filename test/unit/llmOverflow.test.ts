// Context-overflow detection: each server's real error text through the client with its numbers read, the pattern table, unknown wordings, hostile texts.
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import { contextWindowFromError, matchOverflow, namesTokenLimit, overflowFacts } from '../../src/core/llm/overflowPatterns';
import { startShapeServer, type ShapeServer } from '../support/shapeServer';
import type { ScriptedEndpoint } from '../support/scriptedEndpoint';
import { startScriptedEndpoint } from '../support/scriptedEndpoint';
import type { OverflowShape } from '../support/scriptedSteps';
import { faults, reply } from '../support/scriptedSteps';

let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

async function lastEvent(shape: OverflowShape): Promise<StreamEvent | undefined> {
  endpoint = await startScriptedEndpoint([faults.overflow(shape, 4096, 5000), reply('never')]);
  const client = new OpenAiChatClient({ baseUrl: endpoint.url, apiKey: 'k-1234', model: 'm', timeoutMs: 5000, maxRetries: 3 });
  let last: StreamEvent | undefined;
  for await (const event of client.stream({ messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal)) last = event;
  return last;
}

describe('overflow errors from each server', () => {
  it.each<[OverflowShape, number | undefined]>([
    ['openai', 4096],
    ['azure', 4096],
    ['openrouter', 4096],
    ['vllm', 4096],
    ['llamacpp', 4096],
    ['lmstudio', 4096],
    ['ollama', undefined],
    ['anthropic', 4096],
  ])('%s: a 400 overflow becomes an overflow error, not retried', async (shape, window) => {
    const end = await lastEvent(shape);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'overflow', status: 400, retryable: false } });
    if (end?.type === 'error') {
      expect(end.error.contextWindow).toBe(window);
      expect(end.error.message).toMatch(/context window/);
    }
    expect(endpoint?.requestCount).toBe(1);
  });
});

describe('overflow pattern table', () => {
  it.each([
    ['openai', 'context_length_exceeded'],
    ['openai', 'Your input exceeds the context window of this model.'],
    ['openrouter', "This endpoint's maximum context length is 8192 tokens."],
    ['vllm', "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"],
    ['llamacpp', 'request (5000 tokens) exceeds the available context size (4096 tokens)'],
    ['lmstudio', 'The number of tokens to keep from the initial prompt is greater than the context length.'],
    ['ollama', 'input length exceeds maximum context length'],
    ['anthropic', 'prompt is too long: 210000 tokens > 200000 maximum'],
  ])('%s phrasing is recognized: %s', (_provider, text) => {
    expect(matchOverflow(text)).toBeDefined();
  });

  it.each([
    'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000.',
    'Invalid value for temperature: must be between 0 and 2',
    'The model `gpt-5` does not exist',
  ])('is not fooled by: %s', (text) => {
    expect(matchOverflow(text)).toBeUndefined();
  });

  it('reads the window size from the message or llama.cpp n_ctx', () => {
    expect(contextWindowFromError("This model's maximum context length is 32768 tokens.")).toBe(32768);
    expect(contextWindowFromError('exceeds', { n_ctx: 2048 })).toBe(2048);
    expect(contextWindowFromError('no numbers here')).toBeUndefined();
  });
});

/** A loopback server that refuses every chat request with one body, as the named server does. */
async function refusal(status: number, body: unknown): Promise<StreamEvent | undefined> {
  server = await startShapeServer({ 'POST /v1/chat/completions': { status, text: typeof body === 'string' ? body : JSON.stringify(body) } });
  const client = new OpenAiChatClient({ baseUrl: server.baseUrl, apiKey: 'k-1234', model: 'm', timeoutMs: 5000, maxRetries: 3, sleep: () => Promise.resolve() });
  let last: StreamEvent | undefined;
  for await (const event of client.stream({ messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal)) last = event;
  return last;
}

let server: ShapeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('every server\'s overflow text, through the client, with its numbers read', () => {
  it.each<[string, number, unknown, number | undefined, number | undefined]>([
    // huggingface/text-generation-inference router/src/validation.rs ValidationError::MaxTotalTokens, prefixed by
    // router/src/infer/mod.rs "Input validation error: {0}", answered 422 as ErrorResponse {error, error_type} (router/src/server.rs).
    ['tgi-total', 422, { error: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`', error_type: 'validation' }, 4096, 4000],
    // The same file, ValidationError::InputLength.
    ['tgi-input', 422, { error: 'Input validation error: `inputs` must have less than 1024 tokens. Given: 1500', error_type: 'validation' }, 1024, 1500],
    // BerriAI/litellm litellm/exceptions.py ContextWindowExceededError ("litellm.ContextWindowExceededError: " + the upstream's text),
    // sent by the proxy as litellm/proxy/_types.py ProxyException {message, type, param, code: "400"}.
    ['litellm', 400, { error: { message: "litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.", type: null, param: null, code: '400' } }, 8192, 9000],
    ['litellm-anthropic', 400, { error: { message: 'litellm.ContextWindowExceededError: AnthropicException - prompt is too long: 210000 tokens > 200000 maximum', type: null, param: null, code: '400' } }, 200000, 210000],
    // vllm-project/vllm: the OpenAI server's check ("However, your request has N input tokens"), the newer one with the
    // reply's room, and the engine's (vllm/v1/engine/processor.py "The decoder prompt (length N) is longer than the maximum model length of M").
    ['vllm-request', 400, { object: 'error', message: "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.", type: 'BadRequestError', param: null, code: 400 }, 4096, 5000],
    ['vllm-output-room', 400, { error: { message: "This model's maximum context length is 8192 tokens. However, you requested 2048 output tokens and your prompt contains at least 6145 input tokens, for a total of at least 8193 tokens.", type: 'BadRequestError', code: 400 } }, 8192, 6145],
    ['vllm-engine', 400, { error: { message: 'The decoder prompt (length 12324) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.', type: 'BadRequestError', code: 400 } }, 8192, 12324],
    // ggml-org/llama.cpp tools/server (exceed_context_size_error with n_prompt_tokens and n_ctx), also what Ollama's
    // llama-server runner passes on inside its own {"error": "<text>"} envelope.
    ['llamacpp', 400, { error: { code: 400, message: 'request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } }, 4096, 5000],
    ['ollama-llamacpp', 400, { error: '{"error":{"code":400,"message":"request (5024 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}' }, 4096, 5024],
    // lmstudio-ai/lmstudio-bug-tracker issues 546 and 1251 (the texts LM Studio answers with).
    ['lmstudio', 400, { error: 'Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input' }, 7866, 10136],
    ['lmstudio-reached', 400, { error: 'Reached context length of 4096 tokens with model (arch: qwen3vlmoe) that does not currently support mid-generation context overflow. Try reloading with a larger context length or shortening the prompt/chat.' }, 4096, undefined],
    // OpenRouter's 400 (openrouter.ai/docs errors): the text, tool and output split.
    ['openrouter', 400, { error: { message: "This endpoint's maximum context length is 256000 tokens. However, you requested about 424983 tokens (358454 of text input, 56529 of tool input, 10000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.", code: 400 } }, 256000, 414983],
    // Anthropic's invalid_request_error texts (docs.claude.com/en/api/errors for the envelope).
    ['anthropic', 400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } }, 200000, 210000],
    ['anthropic-max-tokens', 400, { type: 'error', error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again' } }, 200000, 198000],
    // OpenAI's context_length_exceeded with the messages/functions split (platform.openai.com error codes).
    ['openai-functions', 400, { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens (129000 in the messages, 1000 in the functions). Please reduce the length of the messages or functions.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }, 128000, 130000],
    ['azure', 400, { error: { message: "This model's maximum context length is 8192 tokens. However, you requested 8416 tokens (2991 in the messages, 5425 in the completion). Please reduce the length of the messages or completion.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }, 8192, 2991],
    // Gemini's OpenAI-compatible API and Vertex (INVALID_ARGUMENT), Mistral, and GitHub Copilot's model_max_prompt_tokens_exceeded.
    ['gemini', 400, [{ error: { code: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } }], 1048576, 1200000],
    ['mistral', 400, { object: 'error', message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length', type: 'invalid_request_error', code: 3051 }, 32768, 40000],
    ['copilot', 400, { error: { message: 'prompt token count of 130,431 exceeds the limit of 128,000', code: 'model_max_prompt_tokens_exceeded' } }, 128000, 130431],
  ])('%s: an overflow (not retried, not a plain bad request) with its window and prompt read', async (_server, status, body, window, prompt) => {
    const end = await refusal(status, body);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'overflow', status, retryable: false } });
    if (end?.type !== 'error') return;
    expect(end.error.contextWindow).toBe(window);
    expect(end.error.promptTokens).toBe(prompt);
    expect(end.error.message).not.toMatch(/not a message we know/);
  });

  /** One refusal through the client: an overflow, not retried, with the window and the prompt's size it names. */
  async function readsNumbers(status: number, body: unknown, window: number | undefined, prompt: number | undefined): Promise<void> {
    const end = await refusal(status, body);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'overflow', status, retryable: false } });
    if (end?.type !== 'error') return;
    expect(end.error.contextWindow).toBe(window);
    expect(end.error.promptTokens).toBe(prompt);
    expect(end.error.message).not.toMatch(/not a message we know/);
  }

  it('sglang-overflow-numbers-read', async () => {
    // sgl-project/sglang python/sglang/srt/managers/tokenizer_manager.py _validate_one_request (commit
    // 001067fffe33427bee0ed2f007fb7551a1d76b44): both ValueErrors, answered 400 as the OpenAI server's ErrorResponse
    // {object: "error", message, type: "BadRequest", param: null, code: 400}.
    await readsNumbers(400, { object: 'error', message: "The input (9000 tokens) is longer than the model's context length (8192 tokens).", type: 'BadRequest', param: null, code: 400 }, 8192, 9000);
    await server?.close();
    const total = "Requested token count exceeds the model's maximum context length of 8192 tokens. You requested a total of 10548 tokens: 6452 tokens from the input messages and 4096 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.";
    await readsNumbers(400, { object: 'error', message: total, type: 'BadRequest', param: null, code: 400 }, 8192, 6452);
  });

  it('together-overflow-numbers-read', async () => {
    // Together's refusal of a prompt longer than the model's context length as issue 38 reports it from the API (its
    // error-codes page, docs.together.ai/docs/error-codes, lists the refusal without its text), in the OpenAI error
    // envelope; older models answered TGI's wording (portkey.ai/error-library/input-validation-error-10151: "`inputs`
    // tokens + `max_new_tokens` must be <= 4097. Given: 5013 `inputs` tokens and 128 `max_new_tokens`").
    await readsNumbers(400, { error: { message: "The input (250000 tokens) is longer than the model's context length (131072 tokens).", type: 'invalid_request_error', param: null, code: null } }, 131072, 250000);
    await server?.close();
    await readsNumbers(400, { error: { message: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4097. Given: 5013 `inputs` tokens and 128 `max_new_tokens`', type: 'invalid_request_error' } }, 4097, 5013);
  });

  it('groq-overflow-recognized-by-its-code-and-by-its-text', async () => {
    // OpenDevin/OpenDevin issue 1902: Groq's 400 {"error": {"message": "Please reduce the length of the messages or
    // completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}; it names no numbers.
    await readsNumbers(400, { error: { message: 'Please reduce the length of the messages or completion.', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }, undefined, undefined);
    await server?.close();
    await readsNumbers(400, { error: { message: 'Please reduce the length of the messages or completion.', type: 'invalid_request_error' } }, undefined, undefined);
  });

  it('localai-overflow-numbers-read', async () => {
    // mudler/LocalAI (commit 82c191af): its llama.cpp backend returns the server's error as gRPC INTERNAL
    // (backend/cpp/llama-cpp/grpc-server.cpp, first_result->is_error()), which core/http/app.go's HTTPErrorHandler
    // answers as 500 {"error": {"code": 500, "message": "rpc error: code = Internal desc = …"}}.
    const message = 'rpc error: code = Internal desc = request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it';
    await readsNumbers(500, { error: { code: 500, message, type: '' } }, 8192, 9000);
  });

  it('overflow numbers are read generically where a text names them', () => {
    expect(overflowFacts("Your prompt (12,000 tokens) is longer than this model's context window (8,192 tokens).")).toEqual({ contextWindow: 8192, promptTokens: 12000 });
    expect(overflowFacts('is longer than the model\'s context length (10 tokens)')).toEqual({});
  });

  it('an unknown wording that names a token limit is an overflow too (compacted and retried once by the loop), its numbers unread', async () => {
    const end = await refusal(400, { error: { message: 'Request exceeds the 8,000 token limit of this deployment.', type: 'invalid_request_error' } });
    expect(end).toMatchObject({ type: 'error', error: { kind: 'overflow', status: 400, retryable: false } });
    if (end?.type !== 'error') return;
    expect(end.error.contextWindow).toBeUndefined();
    expect(end.error.message).toMatch(/not a message we know, but it names a token limit/);
    const gateway = await refusal(413, 'Payload rejected: too many input tokens for the upstream model');
    expect(gateway).toMatchObject({ type: 'error', error: { kind: 'overflow', status: 413 } });
  });

  it.each<[number, string, string]>([
    [400, 'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.', 'badRequest'],
    [422, 'Input validation error: `max_new_tokens` must be <= 4096. Given: 10000', 'badRequest'],
    [400, 'Invalid value for temperature: must be between 0 and 2', 'badRequest'],
    [401, 'Your token has exceeded its limit of uses', 'auth'],
    [404, 'model not found (context length unknown)', 'notFound'],
    [429, 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000.', 'rateLimit'],
    [400, 'invalid token in the request body', 'badRequest'],
  ])('%s "%s" stays what it is', async (status, message, kind) => {
    const end = await refusal(status, { error: { message } });
    expect(end).toMatchObject({ type: 'error', error: { kind } });
  });
});

describe('hostile overflow texts stay bounded and are ignored', () => {
  it('huge numbers, 10-token windows and negative figures teach nothing', () => {
    expect(overflowFacts("This model's maximum context length is 99999999999999999999 tokens. However, your request has 99999999999999 input tokens.")).toEqual({});
    expect(overflowFacts('prompt is too long: 5000 tokens > 10 maximum')).toEqual({ promptTokens: 5000 });
    expect(overflowFacts('The input token count (1e9) exceeds the maximum number of tokens allowed (-4096).')).toEqual({});
    expect(overflowFacts('`inputs` tokens + `max_new_tokens` must be <= 1,0,0,0,0,0,0,0,0,0,0. Given: 5 `inputs` tokens')).toEqual({ promptTokens: 5 });
    expect(contextWindowFromError('x', { n_ctx: 1e300, n_prompt_tokens: Number.NaN })).toBeUndefined();
  });

  it('megabytes of text are read only at their start, quickly, and a window past it is not found', () => {
    const padding = 'context '.repeat(1024 * 1024);
    const late = `${padding} This model's maximum context length is 4096 tokens.`;
    expect(late.length).toBeGreaterThan(8 * 1024 * 1024);
    expect(matchOverflow(late)).toBeUndefined();
    expect(contextWindowFromError(late)).toBeUndefined();
    expect(namesTokenLimit(late)).toBe(false);
    const early = `This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. ${padding}`;
    expect(matchOverflow(early)).toBeDefined();
    expect(overflowFacts(early)).toEqual({ contextWindow: 4096, promptTokens: 5000 });
    expect(namesTokenLimit(`${'('.repeat(1_000_000)}tokens exceed`)).toBe(false);
    expect(overflowFacts(`${'(1 in the messages'.repeat(200_000)}`)).toEqual({});
  });

  it('a megabyte refusal through the client is cut, classified and still an overflow', async () => {
    const end = await refusal(422, { error: `Input validation error: \`inputs\` tokens + \`max_new_tokens\` must be <= 4096. Given: 4000 \`inputs\` tokens and 200 \`max_new_tokens\` ${'x'.repeat(2 * 1024 * 1024)}`, error_type: 'validation' });
    expect(end).toMatchObject({ type: 'error', error: { kind: 'overflow', status: 422 } });
    if (end?.type === 'error') expect(end.error.message.length).toBeLessThan(4000);
  });
});
