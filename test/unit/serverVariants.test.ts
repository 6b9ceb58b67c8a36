// The window of each server variant as its users run it, against a loopback server answering with that server's own shapes (sources cited per shape).
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import { resolveContextWindow, windowIsKnown } from '../../src/core/llm/contextWindow';
import type { ResolvedFlavor } from '../../src/core/llm/endpointFlags';
import { findListedModel, parseModelList } from '../../src/core/llm/modelList';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import type { DiscoveredWindow } from '../../src/core/llm/serverWindowFacts';
import { serverFetchJson } from '../../src/core/llm/serverFetch';
import { AZURE_DEPLOYMENT_API_VERSION, discoverWindow, servedModelWindow } from '../../src/core/llm/windowDiscovery';
import { collect } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { startShapeServer, streamedReply, type ShapeServer } from '../support/shapeServer';

let server: ShapeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function discoverOver(flavor: ResolvedFlavor, modelId: string, routes: Record<string, unknown>, baseSuffix = ''): Promise<DiscoveredWindow | undefined> {
  server = await startShapeServer(routes);
  const fetchJson = serverFetchJson(`${server.baseUrl.replace(/\/v1$/, '')}${baseSuffix}`, {});
  if (!fetchJson) throw new Error('no fetchJson');
  return discoverWindow(flavor, modelId, fetchJson);
}

function client(model: string): OpenAiChatClient {
  if (!server) throw new Error('no server');
  return new OpenAiChatClient({ baseUrl: server.baseUrl, apiKey: '', model, timeoutMs: 10_000, maxRetries: 0 });
}

async function listed(model: string): Promise<ReturnType<typeof findListedModel>> {
  return findListedModel(await client(model).listModels(), model);
}

/** The window the loop measures against after each reply (the usage event's budget). */
function windowsAfterReplies(events: readonly AgentEvent[]): Array<{ contextWindow: number; windowKnown: boolean }> {
  return events.flatMap((event) => (event.type === 'usage' ? [{ contextWindow: event.budget.contextWindow, windowKnown: event.budget.windowKnown }] : []));
}

describe('vLLM serving a LoRA adapter', () => {
  /**
   * `GET /v1/models` of `vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora --lora-modules sql-lora=/adapters/sql`.
   * Source: vllm-project/vllm vllm/entrypoints/openai/serving_models.py `show_available_models` (base cards carry
   * max_model_len and root = the model path; LoRA cards root = the adapter path, parent = the base model, no max_model_len;
   * prompt adapter cards root = the base model name).
   */
  const VLLM_MODELS = {
    object: 'list',
    data: [
      { id: 'meta-llama/Llama-3.1-8B-Instruct', object: 'model', created: 1735000000, owned_by: 'vllm', root: 'meta-llama/Llama-3.1-8B-Instruct', parent: null, max_model_len: 32768, permission: [] },
      { id: 'sql-lora', object: 'model', created: 1735000000, owned_by: 'vllm', root: '/adapters/sql', parent: 'meta-llama/Llama-3.1-8B-Instruct', max_model_len: null, permission: [] },
      { id: 'tone-prompt', object: 'model', created: 1735000000, owned_by: 'vllm', root: 'meta-llama/Llama-3.1-8B-Instruct', parent: null, max_model_len: null, permission: [] },
      { id: 'orphan-lora', object: 'model', created: 1735000000, owned_by: 'vllm', root: '/adapters/orphan', parent: 'not-served', max_model_len: null, permission: [] },
    ],
  };

  it('vllm-lora-adapter: the adapter has no max_model_len; the base model named by `parent` has, and is labelled as such', async () => {
    server = await startShapeServer({ 'GET /v1/models': VLLM_MODELS });
    const adapter = await listed('sql-lora');
    expect(adapter).toMatchObject({ id: 'sql-lora', contextWindow: 32768, parent: 'meta-llama/Llama-3.1-8B-Instruct' });
    const window = resolveContextWindow({ endpointList: adapter?.contextWindow ?? null, ...(adapter?.windowDetail ? { endpointDetail: adapter.windowDetail } : {}) });
    expect(window).toEqual({ tokens: 32768, source: 'endpoint', detail: 'the window its base model meta-llama/Llama-3.1-8B-Instruct is listed with (max_model_len; a LoRA adapter lists none)' });
    // Before: the adapter's own entry had no window, so it was the 128k assumption.
    expect(parseModelList(VLLM_MODELS).find((model) => model.id === 'sql-lora')?.contextWindow).toBeUndefined();
  });

  it('vllm-prompt-adapter: `root` names the base model; an adapter whose base is not served stays unknown', async () => {
    server = await startShapeServer({ 'GET /v1/models': VLLM_MODELS });
    expect(await listed('tone-prompt')).toMatchObject({ contextWindow: 32768 });
    expect((await listed('orphan-lora'))?.contextWindow).toBeUndefined();
    // A base model's root is its own path: no parent, its own window.
    expect(await listed('meta-llama/Llama-3.1-8B-Instruct')).toEqual({ id: 'meta-llama/Llama-3.1-8B-Instruct', contextWindow: 32768 });
  });
});

describe('llama.cpp in router mode (several models)', () => {
  /**
   * Shapes from ggml-org/llama.cpp tools/server/server-models.cpp (`get_router_props`, `get_router_models`,
   * `router_validate_model`) and tools/server/README.md "Using multiple models": `/props` without `?model=` is the
   * router's own (n_ctx 0); `/props?model=…` is proxied to the model's instance, and with `autoload=false` a model
   * that is not running is refused (400 "model is not loaded") instead of loaded; `/models` lists each model with
   * `status.value` and the `status.args` its instance starts with.
   */
  const MODEL = 'ggml-org/gemma-3-4b-it-GGUF:Q4_K_M';
  const ROUTER_PROPS = { role: 'router', max_instances: 4, models_autoload: true, model_alias: 'llama-server', model_path: 'none', default_generation_settings: { params: {}, n_ctx: 0 }, build_info: 'b7000-abcdef' };
  const NOT_LOADED = { status: 400, text: JSON.stringify({ error: { code: 400, message: 'model is not loaded', type: 'invalid_request_error' } }) };
  function routerModels(value: string, args: string[]): unknown {
    return {
      object: 'list',
      data: [
        {
          id: MODEL,
          aliases: ['gemma'],
          tags: [],
          object: 'model',
          owned_by: 'llamacpp',
          created: 1735000000,
          status: { value, args },
          architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
          source: 'cache',
          can_remove: true,
        },
      ],
    };
  }
  const query = `?model=${encodeURIComponent(MODEL)}&autoload=false`;
  /** The instance's own /props (tools/server/README.md "GET /props"), started with --ctx-size 8192. */
  const INSTANCE_PROPS = { default_generation_settings: { id: 0, id_task: -1, n_ctx: 8192, speculative: false, is_processing: false, params: {} }, total_slots: 1, model_path: '/cache/gemma-3-4b-it-Q4_K_M.gguf', is_sleeping: false };

  function neverLoads(asked: readonly string[]): void {
    for (const request of asked) {
      if (/^GET \/(props|slots)\?/.test(request)) expect(request).toContain('autoload=false');
      expect(request).not.toMatch(/models\/load|^POST \/v1\/chat/);
    }
  }

  it('llamacpp-router-loaded: /props?model=…&autoload=false answers the instance n_ctx; the router\'s own n_ctx 0 is never a window', async () => {
    const found = await discoverOver('llamacpp', MODEL, { 'GET /props': ROUTER_PROPS, [`GET /props${query}`]: INSTANCE_PROPS, 'GET /models': routerModels('loaded', ['llama-server', '--ctx-size', '8192']) });
    expect(found).toEqual({ tokens: 8192, detail: 'llama.cpp router /props?model= n_ctx' });
    expect(server?.asked).not.toContain('GET /props');
    neverLoads(server?.asked ?? []);
  });

  it('llamacpp-router-not-loaded: /props refuses; the -c its instance starts with (status.args) is the window, and nothing is loaded to ask', async () => {
    const found = await discoverOver('llamacpp', MODEL, { 'GET /props': ROUTER_PROPS, [`GET /props${query}`]: NOT_LOADED, 'GET /models': routerModels('unloaded', ['llama-server', '-c', '4096', '-ngl', '99']) });
    // Read before the model is loaded: used, and read again after the first reply loads it.
    expect(found).toEqual({ tokens: 4096, detail: 'llama.cpp router /models status.args --ctx-size (the model is unloaded; its instance starts with it)', beforeLoad: true });
    neverLoads(server?.asked ?? []);
  });

  it('llamacpp-router-slots: a loaded model whose /props cannot be read answers in /slots?model=', async () => {
    const slots = [{ id: 0, id_task: 135, n_ctx: 65536, speculative: false, is_processing: false, params: {} }];
    const found = await discoverOver('llamacpp', 'gemma', { [`GET /props?model=gemma&autoload=false`]: { status: 500, text: '{}' }, 'GET /models': routerModels('loaded', ['llama-server']), 'GET /slots?model=gemma&autoload=false': slots });
    expect(found).toEqual({ tokens: 65536, detail: 'llama.cpp router /slots n_ctx' });
  });

  it('llamacpp-router-unknown-until-loaded: no -c and not loaded says nothing (not 0, not 128k as fact); the first reply teaches it', async () => {
    const routes: Record<string, unknown> = { 'GET /props': ROUTER_PROPS, [`GET /props${query}`]: NOT_LOADED, 'GET /models': routerModels('unloaded', ['llama-server']) };
    expect(await discoverOver('llamacpp', MODEL, routes)).toBeUndefined();
    const unknown = resolveContextWindow({ server: null });
    expect(windowIsKnown(unknown.source)).toBe(false);
    // The chat request loads the model (autoload); /props?model= then answers for it.
    server?.set(`GET /props${query}`, INSTANCE_PROPS);
    const fetchJson = serverFetchJson(server?.baseUrl ?? '', {});
    expect(fetchJson && (await discoverWindow('llamacpp', MODEL, fetchJson))).toMatchObject({ tokens: 8192 });
  });
});

describe('Ollama before the model is loaded', () => {
  const fixture = useAgentFixture();
  /** Ollama docs/api.md "Show Model Information" and docs.ollama.com/api/ps, as in windowDiscovery.test.ts. */
  const SHOW = { parameters: 'stop "<|im_end|>"', model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 } };
  const psLoaded = (contextLength: number): unknown => ({ models: [{ name: 'qwen2.5-coder:7b', model: 'qwen2.5-coder:7b', size: 6591830464, size_vram: 5333539264, context_length: contextLength }] });

  it('ollama-before-load: unknown until loaded (the defaults named), then learned from /api/ps at the first reply, not at the first overflow', async () => {
    const routes: Record<string, unknown> = {
      'GET /api/ps': { models: [] },
      'POST /api/show': SHOW,
      // The first chat request loads the model, at the window Ollama picks by GPU memory (4k here).
      'POST /v1/chat/completions': () => {
        server?.set('GET /api/ps', psLoaded(4096));
        return streamedReply('Hello.', 'qwen2.5-coder:7b');
      },
    };
    const before = await discoverOver('ollama', 'qwen2.5-coder:7b', routes);
    expect(before).toMatchObject({ tokens: 32768, untilLoaded: true });
    expect(before?.detail).toMatch(/unknown until loaded: by Ollama's defaults 4,096 or 32,768 by GPU memory, or OLLAMA_CONTEXT_LENGTH/);
    const fetchJson = serverFetchJson(server?.baseUrl ?? '', {});
    if (!fetchJson) throw new Error('no fetchJson');
    const asked: number[] = [];
    const events = await collect(
      runAgent({
        ...baseAgentOptions(fixture, client('qwen2.5-coder:7b')),
        modelId: 'qwen2.5-coder:7b',
        contextWindow: 32768,
        windowKnown: false,
        serverTruncates: true,
        windowAfterReply: async () => {
          const found = await discoverWindow('ollama', 'qwen2.5-coder:7b', fetchJson);
          asked.push(found?.tokens ?? 0);
          return found && !found.untilLoaded ? found.tokens : undefined;
        },
      }),
    );
    expect(asked).toEqual([4096]);
    expect(windowsAfterReplies(events)).toEqual([{ contextWindow: 4096, windowKnown: true }]);
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });

  it('ollama-before-load: a window that stays unknown is asked once per request, not after every reply', async () => {
    server = await startShapeServer({ 'POST /v1/chat/completions': streamedReply('Hello.', 'm') });
    let asked = 0;
    const events = await collect(
      runAgent({
        ...baseAgentOptions(fixture, client('m')),
        windowKnown: false,
        windowAfterReply: () => {
          asked++;
          return Promise.resolve(undefined);
        },
      }),
    );
    expect(asked).toBe(1);
    expect(windowsAfterReplies(events)).toEqual([{ contextWindow: 128_000, windowKnown: false }]);
  });
});

describe('OpenRouter variants', () => {
  /**
   * OpenRouter docs "Model Variants" (openrouter.ai/docs/guides/routing/model-variants/overview): routing variants
   * (`:nitro`, `:floor`, `:exacto`, `:online`...) are accepted on any model id and are not in `GET /api/v1/models`
   * (the base model's metadata applies); catalog variants (`:free`, `:thinking`, `:extended`) are entries of their
   * own, whose context_length can differ. Entry shape as in windowDiscovery.test.ts.
   */
  const LISTING = {
    data: [
      { id: 'anthropic/claude-sonnet-4', name: 'Anthropic: Claude Sonnet 4', context_length: 200000, top_provider: { context_length: 200000, max_completion_tokens: 64000 } },
      { id: 'meta-llama/llama-3.3-70b-instruct', context_length: 131072, top_provider: { context_length: 131072, max_completion_tokens: 16384 } },
      { id: 'meta-llama/llama-3.3-70b-instruct:free', context_length: 65536, top_provider: { context_length: 65536, max_completion_tokens: 8192 } },
    ],
  };

  it.each(['nitro', 'floor', 'exacto', 'online', 'thinking'])('openrouter-variant-%s: not listed, so the base id\'s context_length, labelled', async (variant) => {
    server = await startShapeServer({ 'GET /v1/models': LISTING });
    const found = await listed(`anthropic/claude-sonnet-4:${variant}`);
    expect(found).toMatchObject({ id: `anthropic/claude-sonnet-4:${variant}`, contextWindow: 200000, maxOutputTokens: 64000 });
    expect(found?.windowDetail).toBe(`the window of anthropic/claude-sonnet-4 in the model list (the :${variant} variant is not listed; it runs the same model)`);
  });

  it('openrouter-variant-free: a listed catalog variant keeps its own, smaller window', async () => {
    server = await startShapeServer({ 'GET /v1/models': LISTING });
    expect(await listed('meta-llama/llama-3.3-70b-instruct:free')).toEqual({ id: 'meta-llama/llama-3.3-70b-instruct:free', contextWindow: 65536, maxOutputTokens: 8192 });
    expect(await listed('unknown/model:nitro')).toBeUndefined();
    expect(await listed('llama3.2:latest')).toBeUndefined();
  });
});

describe('LiteLLM proxy', () => {
  /**
   * `GET /model/info` (also `/v1/model/info`). Source: BerriAI/litellm docs/my-website/docs/proxy/model_management.md
   * ("Expected Response": data[].model_name, litellm_params, model_info with max_tokens, max_input_tokens,
   * max_output_tokens from LiteLLM's model map or the config).
   */
  function modelInfo(entries: Array<{ name: string; model: string; maxInput?: number }>): unknown {
    return {
      data: entries.map((entry, index) => ({
        model_name: entry.name,
        litellm_params: { model: entry.model },
        model_info: { id: `e889baac${index}`, db_model: false, key: entry.model, max_tokens: 4096, ...(entry.maxInput !== undefined ? { max_input_tokens: entry.maxInput } : {}), max_output_tokens: 4096, litellm_provider: 'openai', mode: 'chat' },
      })),
    };
  }

  it('litellm-model-info: max_input_tokens of the model name; of two deployments, the smaller', async () => {
    const found = await discoverOver('litellm', 'gpt-4', { 'GET /model/info': modelInfo([{ name: 'gpt-4', model: 'gpt-4', maxInput: 8192 }, { name: 'gpt-4', model: 'azure/gpt-4-eu', maxInput: 8000 }, { name: 'other', model: 'x', maxInput: 1_000_000 }]) });
    expect(found).toEqual({ tokens: 8000, detail: "LiteLLM /model/info max_input_tokens (LiteLLM's model map or config; the upstream server decides)" });
  });

  it('litellm-v1-model-info: asked at /v1/model/info when /model/info is not there; nothing usable is nothing', async () => {
    expect(await discoverOver('litellm', 'gpt-4', { 'GET /v1/model/info': modelInfo([{ name: 'gpt-4', model: 'gpt-4', maxInput: 8192 }]) })).toMatchObject({ tokens: 8192 });
    await server?.close();
    expect(await discoverOver('litellm', 'gpt-4', { 'GET /model/info': modelInfo([{ name: 'gpt-4', model: 'gpt-4' }, { name: 'openai/*', model: 'openai/*', maxInput: 128000 }]) })).toBeUndefined();
  });
});

describe('Hugging Face TGI', () => {
  /**
   * `GET /info`. Source: huggingface/text-generation-inference router/src/lib.rs `struct Info` (model_id, max_input_tokens,
   * max_total_tokens, router "text-generation-router"); launcher/src/main.rs defaults max_input_tokens to
   * max_total_tokens - 1. Older releases named the input limit max_input_length.
   */
  const INFO = { model_id: 'bigcode/starcoder2-15b', model_sha: null, model_pipeline_tag: 'text-generation', max_concurrent_requests: 128, max_best_of: 2, max_stop_sequences: 4, max_input_tokens: 16383, max_total_tokens: 16384, validation_workers: 2, max_client_batch_size: 4, router: 'text-generation-router', version: '3.3.6', sha: null, docker_label: null };

  it('tgi-info: max_total_tokens with the default input limit', async () => {
    expect(await discoverOver('tgi', 'bigcode/starcoder2-15b', { 'GET /info': INFO })).toEqual({ tokens: 16384, detail: 'TGI /info max_total_tokens' });
  });

  it('tgi-info-input-limit: an input limit set lower than the total is what a prompt may reach; older max_input_length too', async () => {
    const found = await discoverOver('tgi', 'm', { 'GET /info': { ...INFO, max_input_tokens: 4000, max_total_tokens: 32000 } });
    expect(found).toEqual({ tokens: 4001, detail: 'TGI /info max_input_tokens 4,000 + 1 (it refuses longer prompts; max_total_tokens 32,000)' });
    await server?.close();
    const { max_input_tokens: _input, ...older } = INFO;
    expect(await discoverOver('tgi', 'm', { 'GET /info': { ...older, max_input_length: 1024, max_total_tokens: 2048 } })).toMatchObject({ tokens: 1025 });
  });

  it('tgi-on-8080: a TGI container on llama-server\'s usual port (detected as llama.cpp) still answers through /info', async () => {
    expect(await discoverOver('llamacpp', 'bigcode/starcoder2-15b', { 'GET /info': INFO })).toEqual({ tokens: 16384, detail: 'TGI /info max_total_tokens' });
  });

  it('tgi-generic: an unknown server that answers /info like TGI is read as TGI; garbage is not', async () => {
    expect(await discoverOver('generic', 'm', { 'GET /info': INFO })).toMatchObject({ tokens: 16384 });
    await server?.close();
    expect(await discoverOver('generic', 'm', { 'GET /info': { max_total_tokens: 16384 } })).toBeUndefined();
  });
});

describe('Azure OpenAI with a custom deployment name', () => {
  /**
   * The deployment API of the 2022-12-01 authoring API (Azure/azure-rest-api-specs
   * specification/cognitiveservices/data-plane/AzureOpenAI/authoring/stable/2022-12-01: `GET /openai/deployments/{id}`
   * answers {object: "deployment", id, model, status, scale_settings...}); newer resources may have retired it, so the
   * chat completion chunks' `model` (the model behind the deployment, e.g. "gpt-4o-2024-08-06") is the other source.
   */
  const DEPLOYMENT = { object: 'deployment', status: 'succeeded', created_at: 1646126127, updated_at: 1646127311, id: 'team-chat', model: 'gpt-4o', owner: 'organization-owner', scale_settings: { scale_type: 'standard' } };
  const path = `/deployments/team-chat?api-version=${AZURE_DEPLOYMENT_API_VERSION}`;

  it('azure-deployment: the deployment API names the model; its window from gpt-tokenizer data (resource URL and /openai/v1 URL)', async () => {
    expect(await discoverOver('azure', 'team-chat', { [`GET /openai${path}`]: DEPLOYMENT })).toEqual({ tokens: 128000, detail: "Azure deployment team-chat runs gpt-4o (gpt-tokenizer's OpenAI model data)" });
    await server?.close();
    // Base URL https://<resource>.openai.azure.com/openai/v1: the probe root is …/openai.
    expect(await discoverOver('azure', 'team-chat', { [`GET /openai${path}`]: DEPLOYMENT }, '/openai/v1')).toMatchObject({ tokens: 128000 });
  });

  it('azure-reply-model: with the deployment API gone, the first reply\'s model names it (Azure spellings too)', async () => {
    expect(await discoverOver('azure', 'team-chat', {})).toBeUndefined();
    server?.set('POST /v1/chat/completions', streamedReply('Hi.', 'gpt-4o-2024-08-06'));
    let done: StreamEvent | undefined;
    for await (const event of client('team-chat').stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) if (event.type === 'done') done = event;
    expect(done?.type === 'done' ? done.servedModel : undefined).toBe('gpt-4o-2024-08-06');
    expect(await servedModelWindow(done?.type === 'done' ? done.servedModel : undefined)).toEqual({ tokens: 128000, detail: "the reply's model gpt-4o-2024-08-06 (gpt-tokenizer's OpenAI model data)" });
    expect(await servedModelWindow('gpt-35-turbo-0613')).toMatchObject({ tokens: 16385 });
    expect(await servedModelWindow('my-own-model')).toBeUndefined();
    expect(await servedModelWindow('x'.repeat(300))).toBeUndefined();
  });
});
