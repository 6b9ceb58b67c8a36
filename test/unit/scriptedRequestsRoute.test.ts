// The scripted endpoint's /__scripted/requests route: out-of-process tests read what the model was sent, and clear it.
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedEndpoint } from '../support/scriptedEndpoint';
import { REQUESTS_ROUTE, startScriptedEndpoint } from '../support/scriptedEndpoint';
import { reply } from '../support/scriptedSteps';
import { uiSession, UI_SUMMARY, HOSTILE_FILE } from '../support/scenarios/uiSession';
import type { RecordedRequest } from '../support/scriptedEndpoint';

let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

function routeUrl(): string {
  return new URL(REQUESTS_ROUTE, endpoint?.url ?? '').toString();
}

async function chat(text: string): Promise<void> {
  const response = await fetch(`${endpoint?.url ?? ''}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'demo-model', messages: [{ role: 'user', content: text }] }),
  });
  await response.text();
}

describe('/__scripted/requests', () => {
  it('returns every recorded chat request as JSON, in order, with its body', async () => {
    endpoint = await startScriptedEndpoint([reply('one'), reply('two')]);
    await chat('first marker');
    await chat('second marker');
    const response = await fetch(routeUrl());
    expect(response.status).toBe(200);
    const recorded = (await response.json()) as RecordedRequest[];
    expect(recorded.map((request) => (request.body as { messages: Array<{ content: string }> }).messages[0]?.content)).toEqual(['first marker', 'second marker']);
    expect(recorded[0]?.path).toBe('/v1/chat/completions');
  });

  it('DELETE clears the record (the in-process list too) and later requests are recorded afresh', async () => {
    endpoint = await startScriptedEndpoint(() => reply('ok'));
    await chat('before');
    const cleared = await fetch(routeUrl(), { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ cleared: 1 });
    expect(endpoint.requestCount).toBe(0);
    await chat('after');
    const recorded = (await (await fetch(routeUrl())).json()) as RecordedRequest[];
    expect(recorded).toHaveLength(1);
    expect(JSON.stringify(recorded[0]?.body)).toContain('after');
  });

  it('answers other methods with 405 and does not count route calls as chat requests', async () => {
    endpoint = await startScriptedEndpoint([reply('unused')]);
    const response = await fetch(routeUrl(), { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(endpoint.requestCount).toBe(0);
  });
});

describe('uiSession scenario', () => {
  const tools = [{ type: 'function', function: { name: 'read_file', parameters: { properties: { path: {} } } } }];
  const request = (messages: unknown[], withTools = true): RecordedRequest => ({ method: 'POST', path: '/v1/chat/completions', headers: {}, body: { messages, ...(withTools ? { tools } : {}) } });

  it('plays read, list, answer per user turn with call ids unique per request', async () => {
    const first = await uiSession(request([{ role: 'user', content: 'hello' }]), 0);
    const again = await uiSession(request([{ role: 'user', content: 'hello' }]), 7);
    expect(first.kind === 'reply' && first.toolCalls?.[0]?.name).toBe('read_file');
    expect(first.kind === 'reply' && again.kind === 'reply' && first.toolCalls?.[0]?.id !== again.toolCalls?.[0]?.id).toBe(true);
    const done = await uiSession(request([{ role: 'user', content: 'hello' }, { role: 'assistant', tool_calls: [{}] }, { role: 'tool', content: 'x' }, { role: 'assistant', tool_calls: [{}] }, { role: 'tool', content: 'y' }]), 2);
    expect(done.kind === 'reply' && done.text).toMatch(/Done with request 1/);
  });

  it('answers summarization requests with a summary carrying every required heading', async () => {
    const step = await uiSession(request([{ role: 'system', content: 'Write a summary' }, { role: 'user', content: 'compact this' }], false), 0);
    expect(step.kind === 'reply' && step.text).toBe(UI_SUMMARY);
    for (const heading of ['## Goal', '## Constraints and preferences', '### Done', '### In progress', '### Blocked', '## Key decisions', '## Next steps', '## Critical context']) {
      expect(UI_SUMMARY).toContain(heading);
    }
  });

  it('writes the hostile file first when the user asks for the hostile turn', async () => {
    const step = await uiSession(request([{ role: 'user', content: 'show the hostile file' }]), 0);
    expect(step.kind === 'reply' && step.toolCalls?.[0]?.name).toBe('write_file');
    expect(step.kind === 'reply' && JSON.stringify(step.toolCalls?.[0]?.arguments)).toContain(HOSTILE_FILE);
  });
});
