// Learned windows (source, time, end, bounds, replaced by a larger server report) and a truncating server's reports.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import { runAgent, type WindowEvidence } from '../../src/core/agent/agentLoop';
import { Calibration, judgeReport } from '../../src/core/budget/calibration';
import { resolveContextWindow } from '../../src/core/llm/contextWindow';
import type { ChatRequest } from '../../src/core/llm/modelStream';
import { contextWindowFromError, matchOverflow, overflowFacts } from '../../src/core/llm/overflowPatterns';
import { serverFetchJson } from '../../src/core/llm/serverFetch';
import { discoverWindow, raiseWindowHint, serverTruncates } from '../../src/core/llm/windowDiscovery';
import type { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { LEARNED_WINDOW_LIFETIME_MS, resolveWindowWithMemory, WindowMemory } from '../../src/vscode/endpoint/windowMemory';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { startShapeServer, type ShapeServer } from '../support/shapeServer';

/** A vscode.Memento over a plain object, as globalState keeps it. */
function memento(initial: Record<string, unknown> = {}): { get(key: string): unknown; update(key: string, value: unknown): Promise<void>; keys(): readonly string[]; data: Record<string, unknown> } {
  const data = { ...initial };
  return {
    data,
    get: (key) => data[key],
    update: (key, value) => {
      data[key] = value;
      return Promise.resolve();
    },
    keys: () => Object.keys(data),
  };
}

function memory(initial: Record<string, unknown> = {}, now = (): number => Date.now()): { windows: WindowMemory; data: Record<string, unknown> } {
  const store = memento(initial);
  return { windows: new WindowMemory(store as never, now), data: store.data };
}

/** Ollama `GET /api/ps` (docs.ollama.com/api/ps) with the model loaded at `contextLength`. */
function ollamaPs(contextLength: number): unknown {
  return {
    models: [
      {
        name: 'qwen2.5-coder:7b',
        model: 'qwen2.5-coder:7b',
        size: 6591830464,
        digest: 'c6eb396dbd5992bbe3f5cdb947e8bbc0ee413d7c17e2beaae69f5d569cf982eb',
        details: { parent_model: '', format: 'gguf', family: 'qwen2', families: ['qwen2'], parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
        expires_at: '2025-10-17T16:47:07.93355-07:00',
        size_vram: 5333539264,
        context_length: contextLength,
      },
    ],
  };
}

const ENDPOINT = 'http://127.0.0.1/v1';
const MODEL = 'qwen2.5-coder:7b';

let server: ShapeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function probedInputs(windows: WindowMemory): Promise<Parameters<typeof resolveContextWindow>[0]> {
  if (!server) throw new Error('no server');
  const fetchJson = serverFetchJson(server.baseUrl, {});
  const found = fetchJson ? await discoverWindow('ollama', MODEL, fetchJson) : undefined;
  return {
    learned: windows.fact(ENDPOINT, MODEL) ?? null,
    server: found ? { contextWindow: found.tokens, detail: found.detail, ...(found.untilLoaded ? { untilLoaded: true } : {}) } : null,
  };
}

describe('learned windows', () => {
  it('learned-window-grows-back-when-the-server-reports-more', async () => {
    const { windows } = memory();
    server = await startShapeServer({ 'GET /api/ps': ollamaPs(4096) });
    // A request overflows at what the server runs: the window is learned with what the server said then.
    const first = resolveWindowWithMemory(windows, ENDPOINT, MODEL, await probedInputs(windows));
    expect(first.window).toMatchObject({ tokens: 4096, source: 'server' });
    first.remember(3900, 'overflow');
    await Promise.resolve();
    expect(windows.get(ENDPOINT, MODEL)).toMatchObject({ tokens: 3900, how: 'overflow', reported: 4096 });
    // The server still says 4096: the learned window stands, with where it came from.
    const same = resolveWindowWithMemory(windows, ENDPOINT, MODEL, await probedInputs(windows));
    expect(same.window).toMatchObject({ tokens: 3900, source: 'learned' });
    expect(same.window.detail).toMatch(/^learned on \d{4}-\d\d-\d\d from an overflow error of this endpoint/);
    // The user raises num_ctx (or OLLAMA_CONTEXT_LENGTH) and Ollama reloads the model at 16k.
    server.set('GET /api/ps', ollamaPs(16_384));
    const raised = resolveWindowWithMemory(windows, ENDPOINT, MODEL, await probedInputs(windows));
    expect(raised.window).toMatchObject({ tokens: 16_384, source: 'server', replacedLearned: true });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(windows.get(ENDPOINT, MODEL)).toBeUndefined();
    expect(resolveWindowWithMemory(windows, ENDPOINT, MODEL, await probedInputs(windows)).window).toMatchObject({ tokens: 16_384, source: 'server' });
  });

  it('a learned window is not replaced by a trained length the server only reports until it loads the model', () => {
    const resolved = resolveContextWindow({ learned: { contextWindow: 4090 }, server: { contextWindow: 32_768, untilLoaded: true } });
    expect(resolved).toMatchObject({ tokens: 4090, source: 'learned' });
  });

  it('absurd-learned-window-is-ignored', async () => {
    // The error text names an absurd window: it is not a window, and nothing is learned or lowered to it.
    expect(contextWindowFromError("This model's maximum context length is 10 tokens. However, you requested 9000 tokens")).toBeUndefined();
    expect(contextWindowFromError('x', { n_ctx: 1e18 })).toBeUndefined();
    const learned: number[] = [];
    const model = scriptedModel([{ error: { kind: 'overflow', message: 'maximum context length is 10 tokens', retryable: false, contextWindow: 10 } }, { text: 'done' }]);
    await collect(runAgent({ ...baseAgentOptions(fixture, model), onContextWindowLearned: (window) => learned.push(window) }));
    expect(learned).toEqual([]);
    // A memory written by an older version (or by hand) with an absurd window is ignored, and none is written.
    const { windows, data } = memory({ 'compactionAgent.learnedWindows': { [`${ENDPOINT}\u0000${MODEL}`]: { tokens: 10, at: Date.now() } } });
    expect(windows.get(ENDPOINT, MODEL)).toBeUndefined();
    expect(windows.list()).toEqual([]);
    await windows.remember(ENDPOINT, 'other', 3);
    await windows.remember(ENDPOINT, 'other', 1e18);
    expect(windows.get(ENDPOINT, 'other')).toBeUndefined();
    expect(data['compactionAgent.learnedWindows']).toEqual({ [`${ENDPOINT}\u0000${MODEL}`]: { tokens: 10, at: expect.any(Number) as number } });
    expect(resolveContextWindow({ learned: 10, endpointList: 32_768 })).toEqual({ tokens: 32_768, source: 'endpoint' });
  });

  it("a VS Code model's overflow error teaches its window as our endpoint's does (the text languageModelStream classifies)", () => {
    // Copilot relays the provider's text, e.g. OpenAI's "This model's maximum context length is 128000 tokens...".
    const text = "Request Failed: 400 This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.";
    expect(matchOverflow(text)).toBeDefined();
    expect(overflowFacts(text)).toEqual({ contextWindow: 128_000, promptTokens: 131_072 });
    expect(overflowFacts("This model's maximum context length is 10 tokens.")).toEqual({});
  });

  it('ends: a learned window older than its lifetime, or dated in the future, is not used', async () => {
    let now = Date.UTC(2025, 0, 1);
    const { windows } = memory({}, () => now);
    await windows.remember(ENDPOINT, MODEL, 8000, 'truncation', 32_768);
    expect(windows.list()).toEqual([{ endpoint: ENDPOINT, model: MODEL, tokens: 8000, at: now, how: 'truncation', reported: 32_768 }]);
    now += LEARNED_WINDOW_LIFETIME_MS + 1;
    expect(windows.get(ENDPOINT, MODEL)).toBeUndefined();
    const future = memory({ 'compactionAgent.learnedWindows': { [`${ENDPOINT}\u0000${MODEL}`]: { tokens: 8000, at: Date.now() + 86_400_000 } } });
    expect(future.windows.get(ENDPOINT, MODEL)).toBeUndefined();
  });

  it('keeps the smaller of two learned windows, lists them newest first and forgets one or all', async () => {
    let now = 1_000_000;
    const { windows } = memory({}, () => now);
    await windows.remember(ENDPOINT, 'a', 8192);
    now += 10;
    await windows.remember(ENDPOINT, 'a', 16_384);
    await windows.remember('vscode-lm:copilot', 'b', 60_000);
    expect(windows.list().map((entry) => [entry.model, entry.tokens])).toEqual([['b', 60_000], ['a', 8192]]);
    await windows.forget({ endpoint: ENDPOINT, model: 'a' });
    expect(windows.list().map((entry) => entry.model)).toEqual(['b']);
    await windows.forget();
    expect(windows.list()).toEqual([]);
  });

  it('garbage in the stored memory is ignored, never thrown', () => {
    for (const stored of [null, 'x', [], { k: null }, { k: { tokens: '8192', at: 1 } }, { [`${ENDPOINT}\u0000${MODEL}`]: { tokens: 8192, at: 'yesterday' } }]) {
      const { windows } = memory({ 'compactionAgent.learnedWindows': stored });
      expect(windows.get(ENDPOINT, MODEL)).toBeUndefined();
      expect(windows.list()).toEqual([]);
    }
  });
});

describe('judging a report on a server that truncates', () => {
  it('a report materially below our count is a truncation on Ollama, a tokenizer difference is not', () => {
    expect(judgeReport(4090, 9000, undefined, { truncates: true })).toMatchObject({ believed: false, truncated: { kept: 4090 } });
    expect(judgeReport(4090, 6800, undefined, { truncates: true })).toMatchObject({ believed: false, truncated: { kept: 4090 } });
    expect(judgeReport(6100, 6800, undefined, { truncates: true })).toEqual({ believed: true });
    expect(judgeReport(7900, 6800, undefined, { truncates: true })).toEqual({ believed: true });
  });

  it('on any server, a report that fills the window while we count much more is a truncation', () => {
    expect(judgeReport(4090, 9000, 4096)).toMatchObject({ believed: false, truncated: { kept: 4090 } });
    expect(judgeReport(4090, 6800, 32_768)).toEqual({ believed: true });
    expect(judgeReport(3900, 4200, 4096)).toEqual({ believed: true });
  });

  it('a truncated report is never a calibration sample', () => {
    const calibration = new Calibration('m');
    expect(calibration.observe({ reported: 4090, content: 8000, tools: 1000 }, undefined, { truncates: true })).toMatchObject({ believed: false });
    expect(calibration.toJSON().observations).toEqual([]);
    expect(calibration.calibrated).toBe(false);
  });

  it('Ollama, KoboldCpp and text-generation-webui are known to truncate; each local server has its own way to raise the window', () => {
    for (const flavor of ['ollama', 'koboldcpp', 'textgen'] as const) expect(serverTruncates(flavor)).toBe(true);
    for (const flavor of ['vllm', 'sglang', 'llamacpp', 'lmstudio', 'localai', 'tgi', 'openai', 'openrouter', 'azure', 'together', 'groq', 'mistral', 'generic'] as const) expect(serverTruncates(flavor)).toBe(false);
    expect(raiseWindowHint('koboldcpp')).toMatch(/--contextsize/);
    expect(raiseWindowHint('localai')).toMatch(/context_size/);
    expect(raiseWindowHint('ollama')).toMatch(/num_ctx.*OLLAMA_CONTEXT_LENGTH/);
    expect(raiseWindowHint('llamacpp')).toMatch(/-c/);
    expect(raiseWindowHint('lmstudio')).toMatch(/LM Studio/);
  });
});

const fixture = useAgentFixture();

/** Tokens of a request as the fake server counts it: the same tokenizer as ours (a server whose count agrees). */
function serverCount(counter: TokenCounter, request: ChatRequest): number {
  const text = request.messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))).join('\n');
  return counter.countText(text) + counter.countTools(request.tools ?? []) + 4 * request.messages.length;
}

/** Ollama at num_ctx 4096: a longer prompt loses its oldest messages and is reported at what was kept. */
function truncatingOllama(counter: TokenCounter, seen: Array<{ counted: number; reported: number }>): ReturnType<typeof scriptedModel> {
  const step = (request: ChatRequest): { text: string; usage: { promptTokens: number; completionTokens: number } } => {
    const counted = serverCount(counter, request);
    const reported = Math.min(counted, 4090);
    seen.push({ counted, reported });
    return { text: 'An answer.', usage: { promptTokens: reported, completionTokens: 6 } };
  };
  return scriptedModel([step, step, step, step]);
}

describe('a truncating server at 4k', () => {
  it('truncating-server-at-4k-with-a-9k-prompt: the window drops, the user is told, the next request fits, nothing is calibrated', async () => {
    const { log, counter } = fixture.session;
    const filler = (turn: number): string => Array.from({ length: 520 }, (_, index) => `note${turn}x${index % 50}`).join(' ');
    for (let turn = 0; turn < 4; turn++) {
      await log.append({ type: 'user', text: filler(turn) });
      await log.append({ type: 'assistant', text: `Noted part ${turn}.`, toolCalls: [], model: 'gpt-4o', stopReason: 'stop' });
    }
    const seen: Array<{ counted: number; reported: number }> = [];
    const model = truncatingOllama(counter, seen);
    const calibration = new Calibration('gpt-4o');
    const { windows } = memory();
    // Ollama without num_ctx, not loaded: only the trained length (32k) is known, labelled until loaded.
    const bound = resolveWindowWithMemory(windows, ENDPOINT, MODEL, { server: { contextWindow: 32_768, detail: 'trained', untilLoaded: true } });
    expect(bound.window.source).toBe('untilLoaded');
    const learned: Array<[number, WindowEvidence]> = [];
    const options = {
      ...baseAgentOptions(fixture, model),
      calibration,
      contextWindow: bound.window.tokens,
      windowKnown: false,
      serverTruncates: serverTruncates('ollama'),
      raiseWindowHint: raiseWindowHint('ollama'),
      onContextWindowLearned: (tokens: number, how: WindowEvidence) => {
        learned.push([tokens, how]);
        bound.remember(tokens, how);
      },
    };
    const first = await collect(runAgent({ ...options, userText: 'What did the first note say?' }));
    expect(seen[0]?.counted).toBeGreaterThan(9000);
    expect(seen[0]?.reported).toBe(4090);
    // The window drops to what the server kept, and is remembered as learned from a truncation.
    expect(learned).toEqual([[4090, 'truncation']]);
    expect(windows.get(ENDPOINT, MODEL)).toMatchObject({ tokens: 4090, how: 'truncation' });
    // The user is told once, with how to raise Ollama's window.
    const notices = first.filter((event): event is Extract<AgentEvent, { type: 'notice' }> => event.type === 'notice');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.message).toMatch(/kept only 4,090 tokens of a prompt we count at 9,\d{3}/);
    expect(notices[0]?.message).toMatch(/num_ctx/);
    expect(notices[0]?.message).toMatch(/OLLAMA_CONTEXT_LENGTH/);
    const usage = first.find((event): event is Extract<AgentEvent, { type: 'usage' }> => event.type === 'usage');
    expect(usage?.budget).toMatchObject({ contextWindow: 4090, windowKnown: true });
    expect(usage?.budget.used).toBeGreaterThan(usage?.budget.usable ?? 0);
    expect(usage?.budget.reportNote).toMatch(/kept 4,090 tokens/);
    // Nothing was calibrated on the truncated report.
    expect(calibration.toJSON().observations).toEqual([]);
    // The next request (bound again: the learned window now wins over the trained length) fits.
    const next = resolveWindowWithMemory(windows, ENDPOINT, MODEL, { learned: windows.fact(ENDPOINT, MODEL) ?? null, server: { contextWindow: 32_768, untilLoaded: true } });
    expect(next.window).toMatchObject({ tokens: 4090, source: 'learned' });
    const second = await collect(runAgent({ ...options, contextWindow: next.window.tokens, windowKnown: true, userText: 'And the last one?' }));
    expect(second.some((event) => event.type === 'compaction')).toBe(true);
    const last = seen.at(-1);
    expect(last && last.counted).toBeLessThanOrEqual(4090);
    expect(last?.reported).toBe(last?.counted);
    expect(second.some((event) => event.type === 'notice' || event.type === 'error')).toBe(false);
    expect(calibration.toJSON().observations.every(([reported]) => reported !== 4090)).toBe(true);
  });
});
