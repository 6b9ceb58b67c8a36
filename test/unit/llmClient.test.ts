// OpenAiChatClient against the scripted endpoint: streaming, tool calls, usage, faults, retries, timeouts, abort.
import { afterEach, describe, expect, it } from 'vitest';
import { detectEndpointFlags } from '../../src/core/llm/endpointFlags';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import type { OpenAiChatClientOptions } from '../../src/core/llm/openaiChatClient';
import type { Script, ScriptedEndpoint } from '../support/scriptedEndpoint';
import { startScriptedEndpoint } from '../support/scriptedEndpoint';
import { faults, reply, toolCalls } from '../support/scriptedSteps';

const API_KEY = 'sk-test-KNOWN-SECRET-0123456789';
const request = { messages: [{ role: 'user' as const, content: 'hello' }] };

let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

interface Harness {
  client: OpenAiChatClient;
  sleeps: number[];
}

async function setup(script: Script, options: Partial<OpenAiChatClientOptions> = {}): Promise<Harness> {
  endpoint = await startScriptedEndpoint(script);
  const sleeps: number[] = [];
  const client = new OpenAiChatClient({
    baseUrl: endpoint.url,
    apiKey: API_KEY,
    model: 'demo-model',
    timeoutMs: 10_000,
    maxRetries: 3,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...options,
  });
  return { client, sleeps };
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function terminal(events: StreamEvent[]): StreamEvent {
  const ends = events.filter((event) => event.type === 'done' || event.type === 'error');
  expect(ends).toHaveLength(1);
  expect(events.at(-1)).toBe(ends[0]);
  return ends[0] as StreamEvent;
}

async function run(script: Script, options: Partial<OpenAiChatClientOptions> = {}) {
  const harness = await setup(script, options);
  const events = await collect(harness.client.stream(request, new AbortController().signal));
  // The key must never leak into anything the caller sees.
  expect(JSON.stringify(events)).not.toContain(API_KEY);
  return { ...harness, events, end: terminal(events) };
}

describe('OpenAiChatClient streaming', () => {
  it('streams text deltas and ends with done carrying the text, stop reason and mapped usage', async () => {
    const { events, end } = await run([
      reply('The answer is forty-two, as everyone knows.', {
        usage: { promptTokens: 120, completionTokens: 11, cachedTokens: 64 },
      }),
    ]);
    const deltas = events.filter((event) => event.type === 'textDelta').map((event) => event.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('The answer is forty-two, as everyone knows.');
    expect(end).toEqual({
      type: 'done',
      text: 'The answer is forty-two, as everyone knows.',
      toolCalls: [],
      invalidArguments: [],
      usage: { promptTokens: 120, completionTokens: 11, cachedTokens: 64 },
      stopReason: 'stop',
      // The chunks' `model`: Azure names the model behind a deployment there (see windowAfterReply).
      servedModel: 'demo-model',
    });
  });

  it('sends the request the flags ask for: stream_options, the key as bearer, model and max tokens', async () => {
    await run([reply('ok')]);
    const sent = endpoint?.requests[0];
    expect(sent?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(sent?.body).toMatchObject({ model: 'demo-model', stream: true, stream_options: { include_usage: true } });
  });

  it('assembles tool calls split across chunks by index, reports starts and flags invalid JSON arguments', async () => {
    const { events, end } = await run([
      toolCalls(
        [
          { id: 'call_a', name: 'read_file', arguments: { path: 'src/index.ts', startLine: 1 } },
          { id: 'call_b', name: 'search_text', arguments: '{"pattern": "foo", ' },
        ],
        { chunkChars: 6 },
      ),
    ]);
    const starts = events.filter((event) => event.type === 'toolCallStart');
    expect(starts).toEqual([
      { type: 'toolCallStart', index: 0, id: 'call_a', name: 'read_file' },
      { type: 'toolCallStart', index: 1, id: 'call_b', name: 'search_text' },
    ]);
    expect(end).toMatchObject({
      type: 'done',
      stopReason: 'toolCalls',
      toolCalls: [
        { id: 'call_a', name: 'read_file', arguments: '{"path":"src/index.ts","startLine":1}' },
        { id: 'call_b', name: 'search_text', arguments: '{"pattern": "foo", ' },
      ],
      invalidArguments: [1],
    });
  });

  it('passes unknown tool names through unchanged (the agent loop reports them)', async () => {
    const { end } = await run([toolCalls([{ id: 'c1', name: 'launch_rocket', arguments: {} }])]);
    expect(end).toMatchObject({ type: 'done', toolCalls: [{ id: 'c1', name: 'launch_rocket', arguments: '{}' }] });
  });

  it('streams reasoning separately from text', async () => {
    const { events, end } = await run([reply('Done.', { reasoning: 'Think first, then answer.' })]);
    expect(events.filter((event) => event.type === 'reasoningDelta').length).toBeGreaterThan(0);
    expect(end).toMatchObject({ type: 'done', text: 'Done.', reasoning: 'Think first, then answer.' });
  });

  it('omits usage when the server sends none', async () => {
    const { end } = await run([reply('no usage', { usage: 'none' })]);
    expect(end.type === 'done' && end.usage).toBe(undefined);
  });
});

describe('OpenAiChatClient faults', () => {
  it('retries 429 honouring Retry-After, then succeeds', async () => {
    const { events, end, sleeps } = await run([faults.rateLimited(7), reply('after the wait')]);
    expect(endpoint?.requestCount).toBe(2);
    expect(sleeps).toEqual([7000]);
    expect(events.filter((event) => event.type === 'retry')).toEqual([
      expect.objectContaining({ type: 'retry', attempt: 1, delayMs: 7000 }),
    ]);
    expect(end).toMatchObject({ type: 'done', text: 'after the wait' });
  });

  it('prefers retry-after-ms over Retry-After', async () => {
    const { sleeps } = await run([faults.rateLimited(9, { 'retry-after-ms': '2500' }), reply('ok')]);
    expect(sleeps).toEqual([2500]);
  });

  it('backs off exponentially on 5xx and gives up after maxRetries with a server error', async () => {
    const { end, sleeps } = await run([faults.serverError(500), faults.serverError(502), faults.serverError(503), faults.serverError(503)], {
      maxRetries: 3,
    });
    expect(endpoint?.requestCount).toBe(4);
    // random() = 0.5 puts each delay at 75% of 1 s, 2 s, 4 s.
    expect(sleeps).toEqual([750, 1500, 3000]);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'server', status: 503, retryable: true } });
  });

  it('does not retry a Retry-After longer than the cap, and reports how long to wait', async () => {
    const { end } = await run([faults.rateLimited(3600), reply('never')]);
    expect(endpoint?.requestCount).toBe(1);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'rateLimit', retryAfterMs: 3_600_000 } });
  });

  it('retries a connection reset before any output', async () => {
    const { end } = await run([faults.reset(), reply('second try')]);
    expect(endpoint?.requestCount).toBe(2);
    expect(end).toMatchObject({ type: 'done', text: 'second try' });
  });

  it('never retries after output started: a mid-stream reset is an error with the partial text', async () => {
    const { events, end } = await run([faults.reset('Partial answer that got cut'), reply('must not be used')]);
    expect(endpoint?.requestCount).toBe(1);
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'network' }, partial: { text: 'Partial answer that got cut' } });
  });

  it.each([
    ['401', faults.unauthorized(), 'auth'],
    ['400 overflow', faults.overflow('openai'), 'overflow'],
    ['400 other', { kind: 'http' as const, status: 400, body: { error: { message: 'Invalid value for temperature' } } }, 'badRequest'],
    ['404', { kind: 'http' as const, status: 404, body: { error: { message: 'The model `x` does not exist' } } }, 'notFound'],
  ])('does not retry %s and classifies it', async (_label, step, kind) => {
    const { end } = await run([step, reply('never')]);
    expect(endpoint?.requestCount).toBe(1);
    expect(end).toMatchObject({ type: 'error', error: { kind, retryable: false } });
  });

  it('reports malformed SSE data as an invalid response', async () => {
    const { end } = await run([faults.malformed('abc'), reply('never')]);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'invalidResponse' }, partial: { text: 'abc' } });
  });

  it('reports a stream without finish_reason or content as invalid, and accepts one that has content', async () => {
    const empty = await run([faults.noFinish()]);
    expect(empty.end).toMatchObject({ type: 'error', error: { kind: 'invalidResponse' } });
    await endpoint?.close();
    const withText = await run([faults.noFinish('some text')]);
    expect(withText.end).toMatchObject({ type: 'done', text: 'some text', stopReason: 'stop' });
  });

  it('times out a request that never answers', async () => {
    const { end } = await run([faults.hang()], { timeoutMs: 300, idleTimeoutMs: 5_000 });
    expect(end).toMatchObject({ type: 'error', error: { kind: 'timeout' } });
    expect(end.type === 'error' && end.error.message).toContain('endpoint.timeoutSeconds');
    expect(endpoint?.requestCount).toBe(1);
  });

  it('times out a stream that goes silent between chunks (idle timeout), keeping the partial text', async () => {
    const { end } = await run([faults.hang('started then stalled')], { timeoutMs: 10_000, idleTimeoutMs: 300 });
    expect(end).toMatchObject({ type: 'error', error: { kind: 'timeout' }, partial: { text: 'started then stalled' } });
    expect(end.type === 'error' && end.error.message).toContain('sent nothing');
  });

  it('ends with an aborted error soon after the caller aborts mid-stream', async () => {
    const { client } = await setup([reply('x'.repeat(400), { chunkChars: 4, chunkDelayMs: 20 })]);
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of client.stream(request, controller.signal)) {
      events.push(event);
      if (events.length === 3) controller.abort();
    }
    const end = terminal(events);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'aborted', retryable: false } });
    // Far fewer deltas than the 100 the reply has: the stream stopped at the abort.
    expect(events.length).toBeLessThan(10);
  });

  it('stops waiting for a retry when aborted during the backoff', async () => {
    const controller = new AbortController();
    const { client } = await setup([faults.serverError(503), reply('never')], {
      sleep: () => {
        controller.abort();
        return Promise.resolve();
      },
    });
    const events = await collect(client.stream(request, controller.signal));
    expect(terminal(events)).toMatchObject({ type: 'error', error: { kind: 'aborted' } });
    expect(endpoint?.requestCount).toBe(1);
  });

  it('scrubs the API key from error text even when the server echoes it', async () => {
    const echo = { kind: 'http' as const, status: 401, body: { error: { message: `Incorrect API key provided: ${API_KEY}.` } } };
    const { end } = await run([echo]);
    expect(end).toMatchObject({ type: 'error', error: { kind: 'auth' } });
    expect(end.type === 'error' && end.error.message).toContain('[redacted]');
  });

  it('sends Azure requests with api-key, api-version and the deployment path', async () => {
    endpoint = await startScriptedEndpoint([reply('azure ok')]);
    const flags = detectEndpointFlags('https://res.openai.azure.com', {});
    const client = new OpenAiChatClient({ baseUrl: `${endpoint.url}?api-version=2025-01-01`, apiKey: API_KEY, model: 'gpt4o-dep', timeoutMs: 5000, maxRetries: 0, flags: { ...flags, apiVersion: '2025-01-01' } });
    const events = await collect(client.stream({ ...request, maxOutputTokens: 100 }, new AbortController().signal));
    expect(terminal(events)).toMatchObject({ type: 'done', text: 'azure ok' });
    const sent = endpoint.requests[0];
    expect(sent?.headers['api-key']).toBe(API_KEY);
    expect(sent?.headers['authorization']).toBeUndefined();
    expect(sent?.path).toBe('/v1/openai/deployments/gpt4o-dep/chat/completions');
    expect(sent?.body).toMatchObject({ max_completion_tokens: 100 });
  });
});
