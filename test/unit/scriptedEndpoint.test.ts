// The scripted endpoint speaks the real wire format, records requests, and the demo scenario plays a whole task.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import type { DoneEvent, StreamEvent } from '../../src/core/llm/modelStream';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import type { ScriptedEndpoint } from '../support/scriptedEndpoint';
import { startScriptedEndpoint } from '../support/scriptedEndpoint';
import { codingSession, DEMO_LABEL } from '../support/scenarios/codingSession';
import { faults, reply, toolCalls } from '../support/scriptedSteps';

let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

async function post(body: unknown): Promise<Response> {
  return fetch(`${endpoint?.url ?? ''}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function dataLines(raw: string): string[] {
  expect(raw.endsWith('\n\n')).toBe(true);
  return raw
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true);
      return frame.slice('data: '.length);
    });
}

describe('scripted endpoint wire format', () => {
  it('streams chat.completion.chunk objects: split tool calls, finish chunk, usage chunk, [DONE]', async () => {
    endpoint = await startScriptedEndpoint([
      toolCalls([{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } }], { usage: { promptTokens: 10, completionTokens: 3 } }),
    ]);
    const raw = await (await post({ model: 'm', messages: [], stream: true, stream_options: { include_usage: true } })).text();
    const lines = dataLines(raw);
    expect(lines.at(-1)).toBe('[DONE]');
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(chunks.every((item) => item['object'] === 'chat.completion.chunk')).toBe(true);
    const deltas = chunks.flatMap((item) => (item['choices'] as Array<{ delta?: { tool_calls?: unknown[] } }>).map((choice) => choice.delta));
    const callDeltas = deltas.flatMap((delta) => delta?.tool_calls ?? []) as Array<{ id?: string; function: { name?: string; arguments: string } }>;
    expect(callDeltas[0]).toMatchObject({ id: 'c1', function: { name: 'read_file', arguments: '' } });
    expect(callDeltas.length).toBeGreaterThan(2);
    expect(callDeltas.map((delta) => delta.function.arguments).join('')).toBe('{"path":"a.ts"}');
    expect(chunks.at(-2)?.['choices']).toMatchObject([{ finish_reason: 'tool_calls' }]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } });
  });

  it('sends no usage chunk unless include_usage was asked for', async () => {
    endpoint = await startScriptedEndpoint([reply('hi')]);
    const raw = await (await post({ model: 'm', messages: [], stream: true })).text();
    expect(raw).not.toContain('"usage"');
  });

  it('answers non-streaming requests with a chat.completion', async () => {
    endpoint = await startScriptedEndpoint([reply('whole answer', { usage: { promptTokens: 5, completionTokens: 2 } })]);
    const body = (await (await post({ model: 'm', messages: [] })).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'whole answer' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5 },
    });
  });

  it('sends HTTP faults with their status, headers and body', async () => {
    endpoint = await startScriptedEndpoint([faults.rateLimited(3)]);
    const response = await post({ model: 'm', messages: [] });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
  });

  it('records every request body, counts them, and explains an exhausted script', async () => {
    endpoint = await startScriptedEndpoint([reply('one')]);
    await (await post({ model: 'm', messages: [{ role: 'user', content: 'first' }], stream: true })).text();
    const second = await post({ model: 'm', messages: [{ role: 'user', content: 'second' }], stream: true });
    expect(second.status).toBe(500);
    expect(await second.text()).toContain('no step for request #2');
    expect(endpoint.requestCount).toBe(2);
    expect(endpoint.requests.map((request) => (request.body as { messages: ChatMessage[] }).messages[0]?.content)).toEqual(['first', 'second']);
  });

  it('chooses steps with a responder function', async () => {
    endpoint = await startScriptedEndpoint((request) =>
      JSON.stringify(request.body).includes('ping') ? reply('pong') : faults.serverError(500),
    );
    const raw = await (await post({ model: 'm', messages: [{ role: 'user', content: 'ping' }], stream: true })).text();
    expect(raw).toContain('pong');
  });

  it('serves /v1/models', async () => {
    endpoint = await startScriptedEndpoint([]);
    const body = (await (await fetch(`${endpoint.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(body.data.map((model) => model.id)).toEqual(['demo-model']);
  });
});

const tools = ['read_file', 'search_text', 'run_command', 'edit_file'].map((name) => ({
  type: 'function' as const,
  function: {
    name,
    description: name,
    parameters: { type: 'object', properties: name === 'run_command' ? { command: {} } : name === 'edit_file' ? { path: {}, oldText: {}, newText: {} } : name === 'search_text' ? { pattern: {} } : { path: {} } },
  },
}));

async function ask(client: OpenAiChatClient, messages: ChatMessage[], withTools = true): Promise<DoneEvent> {
  let last: StreamEvent | undefined;
  for await (const event of client.stream({ messages, ...(withTools ? { tools } : {}) }, new AbortController().signal)) last = event;
  if (last?.type !== 'done') throw new Error(`expected done, got ${JSON.stringify(last)}`);
  return last;
}

describe('codingSession scenario', () => {
  it('plays a whole fix-the-test turn with tools, then summarizes on request', async () => {
    endpoint = await startScriptedEndpoint(codingSession);
    const client = new OpenAiChatClient({ baseUrl: endpoint.url, apiKey: '', model: 'demo-model', timeoutMs: 5000, maxRetries: 0 });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Please fix the failing test in test/range.test.ts' },
    ];
    const used: string[] = [];
    for (let step = 0; step < 10; step++) {
      const done = await ask(client, messages);
      expect(done.text.startsWith(DEMO_LABEL)).toBe(true);
      if (done.toolCalls.length === 0) break;
      messages.push({ role: 'assistant', content: done.text, tool_calls: done.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) });
      for (const call of done.toolCalls) {
        used.push(call.name);
        const output = call.name === 'read_file' ? `1: import { inRange } from '../src/range';\n2: expect(inRange(5, 0, 5)).toBe(true);\n${'x'.repeat(20_000)}` : 'ok';
        messages.push({ role: 'tool', tool_call_id: call.id, content: output });
      }
    }
    expect(used).toEqual(['read_file', 'search_text', 'run_command', 'edit_file', 'run_command']);
    const edit = endpoint.requests.length;
    expect(edit).toBe(6);
    const editCall = (endpoint.requests[4]?.body as { messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }> }).messages.at(-2)?.tool_calls?.[0];
    expect(JSON.parse(editCall?.function.arguments ?? '{}')).toMatchObject({ path: 'test/range.test.ts', oldText: 'expect(inRange(5, 0, 5)).toBe(true);' });

    const summary = await ask(client, [{ role: 'system', content: 'Summarize the conversation.' }, { role: 'user', content: 'conversation...' }], false);
    expect(summary.text).toContain('## Next steps');
    expect(summary.text.startsWith(DEMO_LABEL)).toBe(true);
  });
});
