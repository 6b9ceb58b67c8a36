// A hostile or broken endpoint: endless error bodies, redirect loops, absurd usage, reused call indexes, odd streams.
import { describe, expect, it } from 'vitest';
import { MAX_ERROR_BODY_BYTES } from '../../src/core/llm/errorBodyFetch';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';

type Responder = (url: string, call: number) => Response;

interface Run {
  events: StreamEvent[];
  calls: string[];
  sleeps: number[];
}

async function run(respond: Responder, maxRetries = 2): Promise<Run> {
  const calls: string[] = [];
  const sleeps: number[] = [];
  const fetch: typeof globalThis.fetch = (input) => {
    const url = input instanceof Request ? input.url : String(input);
    calls.push(url);
    return Promise.resolve(respond(url, calls.length));
  };
  const client = new OpenAiChatClient({
    baseUrl: 'http://endpoint.test/v1',
    apiKey: 'sk-hostile-0123456789',
    model: 'm',
    timeoutMs: 20_000,
    maxRetries,
    fetch,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0,
  });
  const events: StreamEvent[] = [];
  for await (const event of client.stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) events.push(event);
  return { events, calls, sleeps };
}

const sse = (body: string): Response => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const finish = (reason: string, usage?: unknown): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: reason }], ...(usage ? { usage } : {}) })}\n\n`;

function endless(status: number): Response {
  const block = new TextEncoder().encode('x'.repeat(16 * 1024));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(block);
    },
  });
  return new Response(body, { status, headers: { 'content-type': 'text/plain' } });
}

describe('hostile endpoint', () => {
  it('endless-error-body-is-cut-and-the-message-stays-short', async () => {
    const { events, calls } = await run(() => endless(400), 0);
    const end = events.at(-1);
    expect(end?.type).toBe('error');
    if (end?.type !== 'error') return;
    expect(end.error.message.length).toBeLessThan(2_200);
    expect(calls).toHaveLength(1);
    expect(MAX_ERROR_BODY_BYTES).toBeLessThanOrEqual(64 * 1024);
  });

  it('a-redirect-loop-stops-after-five-and-is-not-retried', async () => {
    const { events, calls } = await run((url) => new Response(null, { status: 307, headers: { location: url } }), 3);
    const end = events.at(-1);
    expect(end?.type).toBe('error');
    if (end?.type === 'error') expect(end.error.message).toMatch(/redirected more than 5 times/);
    expect(calls.length).toBeLessThanOrEqual(6);
  });

  it('a-redirect-to-another-server-is-refused-without-sending-the-key-there', async () => {
    const { events, calls } = await run(() => new Response(null, { status: 302, headers: { location: 'http://elsewhere.test/steal' } }));
    expect(calls.every((url) => url.startsWith('http://endpoint.test/'))).toBe(true);
    const end = events.at(-1);
    if (end?.type === 'error') expect(end.error.message).toMatch(/another server \(http:\/\/elsewhere\.test\)/);
    else expect.fail('expected an error');
  });

  it('retry-after-zero-still-waits-the-backoff', async () => {
    const { sleeps } = await run((_url, call) =>
      call === 1 ? new Response('{"error":{"message":"slow down"}}', { status: 429, headers: { 'retry-after': '0' } }) : sse(chunk({ content: 'ok' }) + finish('stop')),
    );
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(500);
  });

  it('absurd-usage-numbers-are-ignored', async () => {
    const { events } = await run(() => sse(chunk({ content: 'ok' }) + finish('stop', { prompt_tokens: 1e308, completion_tokens: -3 })));
    const end = events.at(-1);
    expect(end?.type).toBe('done');
    if (end?.type === 'done') expect(end.usage).toBeUndefined();
  });

  it('a-reused-index-with-a-new-id-is-a-second-call', async () => {
    const call = (id: string, name: string, args: string): string => chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }] });
    const { events } = await run(() => sse(call('call_a', 'read_file', '{"path":"a"}') + call('call_b', 'list_files', '{}') + finish('tool_calls')));
    const end = events.at(-1);
    expect(end?.type).toBe('done');
    if (end?.type !== 'done') return;
    expect(end.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['call_a', 'read_file', '{"path":"a"}'],
      ['call_b', 'list_files', '{}'],
    ]);
  });

  it('an-error-event-before-any-output-is-retried', async () => {
    const { events, calls } = await run((_url, n) =>
      n === 1 ? sse(`event: error\ndata: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`) : sse(chunk({ content: 'second try' }) + finish('stop')),
    );
    expect(calls).toHaveLength(2);
    const end = events.at(-1);
    expect(end?.type === 'done' && end.text).toBe('second try');
  });

  it('a-final-event-without-its-blank-line-is-kept', async () => {
    const { events } = await run(() => sse(chunk({ content: 'all ' }) + chunk({ content: 'here' }) + finish('length', { prompt_tokens: 12, completion_tokens: 2 }).trimEnd()));
    const end = events.at(-1);
    expect(end?.type).toBe('done');
    if (end?.type !== 'done') return;
    expect(end.text).toBe('all here');
    expect(end.stopReason).toBe('length');
    expect(end.usage).toEqual({ promptTokens: 12, completionTokens: 2 });
  });
});
