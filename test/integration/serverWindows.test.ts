// Issues 31 and 38 in the real host: a window the server tells only once the model is loaded is learned at the first reply, not at the first overflow; one read before loading is read again then.
import * as assert from 'node:assert/strict';
import { reply } from '../support/scriptedSteps';
import { activeSession } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';

/** Ollama's POST /api/show for a model pulled without num_ctx (docs/api.md "Show Model Information"), trimmed. */
const SHOW = { parameters: 'stop "<|im_end|>"', model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 } };

describe('server windows', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('Ollama before the model is loaded: unknown until loaded, then /api/ps once the first reply loaded it', async () => {
    let loaded = false;
    let model = '';
    // Ollama's GET /api/ps (docs.ollama.com/api/ps): empty until a chat request loads the model at the window it picks (4k).
    const routes = (method: string, path: string): unknown => {
      if (method === 'GET' && path === '/api/ps') return { models: loaded ? [{ name: model, model, size: 6591830464, size_vram: 5333539264, context_length: 4096 }] : [] };
      if (method === 'POST' && path === '/api/show') return SHOW;
      return undefined;
    };
    const script = (): ReturnType<typeof reply> => {
      loaded = true;
      return reply('Hello from a model Ollama just loaded.');
    };
    endpoint = await useScriptedEndpoint(script, { 'endpoint.flavor': 'ollama' }, { routes });
    model = endpoint.model;
    await newChatThread();
    const { reply: answer } = await sendChat('@agent hello', endpoint.model);
    assert.match(answer.text, /just loaded/);
    const session = await activeSession();
    assert.equal(session.model.contextWindow, 4096, `the window was not learned at the first reply (${session.model.windowSource}: ${session.model.windowDetail ?? ''})`);
    assert.equal(session.model.windowSource, 'server');
    assert.match(session.model.windowDetail ?? '', /Ollama \/api\/ps context_length/);
    const budget = session.budgetView();
    assert.ok(budget, 'no budget after the reply');
    assert.equal(budget.contextWindow, 4096);
    assert.equal(budget.windowKnown, true);
  });

  it('Ollama with num_ctx above the trained length: capped to it, and read again after the first reply loaded the model', async () => {
    let loadedAt: number | undefined;
    let model = '';
    // PARAMETER num_ctx 65536 on a model trained for 40,960: Ollama caps num_ctx at the trained length (llm/server.go),
    // then loads it lower still when it does not fit in memory (32,768 here), as /api/ps says once loaded.
    const show = { parameters: 'num_ctx                        65536', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } };
    const routes = (method: string, path: string): unknown => {
      if (method === 'GET' && path === '/api/ps') return { models: loadedAt ? [{ name: model, model, size: 7_800_000_000, size_vram: 7_800_000_000, context_length: loadedAt }] : [] };
      if (method === 'POST' && path === '/api/show') return show;
      return undefined;
    };
    const script = (): ReturnType<typeof reply> => {
      loadedAt = 32768;
      return reply('Hello from a model Ollama loaded at 32k.');
    };
    endpoint = await useScriptedEndpoint(script, { 'endpoint.flavor': 'ollama' }, { routes });
    model = endpoint.model;
    await newChatThread();
    const { reply: answer } = await sendChat('@agent hello', endpoint.model);
    assert.match(answer.text, /loaded at 32k/);
    const session = await activeSession();
    assert.equal(session.model.contextWindow, 32768, `the window was not read again after the first reply (${session.model.windowSource}: ${session.model.windowDetail ?? ''})`);
    assert.match(session.model.windowDetail ?? '', /Ollama \/api\/ps context_length/);
    assert.equal(session.budgetView()?.contextWindow, 32768);
  });
});
