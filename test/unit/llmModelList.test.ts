// listModels: limits from each server's /models shape, and clear key-free errors.
import { afterEach, describe, expect, it } from 'vitest';
import { parseModelList } from '../../src/core/llm/modelList';
import { ModelCallError, OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import type { ScriptedEndpoint } from '../support/scriptedEndpoint';
import { startScriptedEndpoint } from '../support/scriptedEndpoint';

let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('parseModelList', () => {
  it('reads each server’s window and output fields', () => {
    const models = parseModelList({
      data: [
        { id: 'openrouter/model', context_length: 200000, top_provider: { max_completion_tokens: 64000 } },
        { id: 'vllm-model', max_model_len: 32768 },
        { id: 'llamacpp-model', meta: { n_ctx_train: 131072 } },
        // LM Studio's /api/v0/models entries say their state (lmstudio-ai/docs 1_developer/2_rest/endpoints.md).
        { id: 'lmstudio-model', object: 'model', type: 'llm', state: 'not-loaded', max_context_length: 8192 },
        // Mistral's /v1/models BaseModelCard: max_context_length is the model's window (docs.rs mistral-openapi-client
        // docs/BaseModelCard.md, from Mistral's OpenAPI spec; default 32768).
        { id: 'mistral-large-latest', object: 'model', owned_by: 'mistralai', capabilities: { completion_chat: true }, max_context_length: 131072, type: 'base' },
        { id: 'groq-model', context_window: 131072, max_completion_tokens: 8192 },
        { id: 'ollama-model', owned_by: 'library' },
        { id: 'vllm-model', max_model_len: 1 },
        { object: 'model' },
      ],
    });
    expect(models).toEqual([
      { id: 'openrouter/model', contextWindow: 200000, maxOutputTokens: 64000 },
      { id: 'vllm-model', contextWindow: 32768 },
      // The trained or maximum length is not what runs: kept apart, and the server's own API is asked.
      { id: 'llamacpp-model', trainedWindow: 131072 },
      { id: 'lmstudio-model', trainedWindow: 8192 },
      { id: 'mistral-large-latest', contextWindow: 131072, windowDetail: "the model list's max_context_length" },
      { id: 'groq-model', contextWindow: 131072, maxOutputTokens: 8192 },
      { id: 'ollama-model' },
    ]);
  });

  it('accepts llama.cpp’s models list and returns nothing for garbage', () => {
    expect(parseModelList({ models: [{ name: 'local.gguf' }] })).toEqual([{ id: 'local.gguf' }]);
    expect(parseModelList('nope')).toEqual([]);
    expect(parseModelList({ data: 'nope' })).toEqual([]);
  });
});

describe('OpenAiChatClient.listModels', () => {
  it('refuses a listing larger than its cap without reading it whole', async () => {
    let pulled = 0;
    const endless = (() =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled++;
              controller.enqueue(new Uint8Array(1024 * 1024).fill(32));
            },
          }),
          { status: 200, headers: { 'content-type': 'application/json' } },
        ),
      )) as typeof fetch;
    const client = new OpenAiChatClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: '', model: 'a', timeoutMs: 5000, maxRetries: 0, fetch: endless });
    const error: unknown = await client.listModels().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).modelError.retryable).toBe(false);
    expect((error as Error).message).toMatch(/larger than 16 MB/);
    expect(pulled).toBeLessThan(40);
  });

  it('lists models from the endpoint', async () => {
    endpoint = await startScriptedEndpoint([], { models: [{ id: 'a', max_model_len: 4096 }, { id: 'b' }] });
    const client = new OpenAiChatClient({ baseUrl: endpoint.url, apiKey: '', model: 'a', timeoutMs: 5000, maxRetries: 0 });
    expect(await client.listModels()).toEqual([{ id: 'a', contextWindow: 4096 }, { id: 'b' }]);
    expect(endpoint.modelListCount).toBe(1);
  });

  it('throws a ModelCallError without the key when the key is rejected', async () => {
    const key = 'sk-wrong-key-ABCDEFGH';
    endpoint = await startScriptedEndpoint([], { apiKey: 'sk-right' });
    const client = new OpenAiChatClient({ baseUrl: endpoint.url, apiKey: key, model: 'a', timeoutMs: 5000, maxRetries: 0 });
    const error: unknown = await client.listModels().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).modelError.kind).toBe('auth');
    expect(String((error as Error).message)).not.toContain(key);
  });

  it('reports an unreachable endpoint as a network error', async () => {
    endpoint = await startScriptedEndpoint([]);
    const url = endpoint.url;
    await endpoint.close();
    endpoint = undefined;
    const client = new OpenAiChatClient({ baseUrl: url, apiKey: '', model: 'a', timeoutMs: 5000, maxRetries: 0 });
    const error: unknown = await client.listModels().catch((caught: unknown) => caught);
    expect((error as ModelCallError).modelError.kind).toBe('network');
  });
});
