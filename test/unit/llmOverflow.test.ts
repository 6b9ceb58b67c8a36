// Context-overflow detection: each server's real error shape through the client, the pattern table, silent overflow.
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import { contextWindowFromError, matchOverflow } from '../../src/core/llm/overflowPatterns';
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
    ['anthropic', undefined],
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
