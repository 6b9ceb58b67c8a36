// The cost a server reports (OpenRouter's usage.cost): read from the stream, validated, persisted, and summed per session.
import * as nodePath from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { mapUsage } from '../../src/core/llm/streamAssembler';
import { importPiSession } from '../../src/core/import/piImport';
import { MAX_REPORTED_COST_USD, type Usage } from '../../src/core/session/entries';
import { validateEntry } from '../../src/core/session/entryValidation';
import { SessionLog } from '../../src/core/session/sessionLog';
import { pathUsage } from '../../src/core/views/usageView';
import { startScriptedEndpoint, type ScriptedEndpoint } from '../support/scriptedEndpoint';
import { reply } from '../support/scriptedSteps';
import { tempDir } from '../support/sessionTempDir';

let endpoint: ScriptedEndpoint | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Streams one request per scripted reply and returns each reply's usage. */
async function usages(costs: unknown[]): Promise<Array<Usage | undefined>> {
  endpoint = await startScriptedEndpoint(costs.map((cost, i) => reply(`answer ${i}`, { usage: { promptTokens: 1000 * (i + 1), completionTokens: 50, cachedTokens: 500 * i, cost } })));
  const client = new OpenAiChatClient({ baseUrl: endpoint.url, apiKey: 'sk-test', model: 'openai/gpt-4o', timeoutMs: 10_000, maxRetries: 0 });
  const out: Array<Usage | undefined> = [];
  for (const _cost of costs) {
    let done: StreamEvent | undefined;
    for await (const event of client.stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) {
      if (event.type === 'done' || event.type === 'error') done = event;
    }
    out.push(done?.type === 'done' ? done.usage : undefined);
  }
  return out;
}

function wire(cost: unknown): Record<string, unknown> {
  return { prompt_tokens: 194, completion_tokens: 2, total_tokens: 196, cost, cost_details: { upstream_inference_cost: 19 } };
}

describe('reported cost', () => {
  it('openrouter-cost-is-read-and-summed-per-session', async () => {
    const reported = await usages([0.0021, 0.0125, 0.84]);
    expect(reported.map((usage) => usage?.cost)).toEqual([0.0021, 0.0125, 0.84]);

    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const file = nodePath.join(dir, 's.jsonl');
    const log = await SessionLog.create(file, { id: 's', title: 'cost' });
    for (const [i, usage] of reported.entries()) {
      await log.append({ type: 'user', text: `request ${i}` });
      await log.append({ type: 'assistant', text: `answer ${i}`, toolCalls: [], ...(usage ? { usage } : {}) });
    }
    await log.close();
    // The cost survives the round trip through the file and its validation.
    const { log: reopened, warnings } = await SessionLog.open(file, { readOnly: true });
    expect(warnings).toEqual([]);
    const { session, turns } = pathUsage(reopened.path());
    expect(session.pricedCalls).toBe(3);
    expect(session.cost).toBeCloseTo(0.8546, 10);
    expect(session.promptTokens).toBe(6000);
    expect(session.cachedTokens).toBe(1500);
    expect(turns.map((turn) => turn.cost)).toEqual([0.0021, 0.0125, 0.84]);
  });

  it('absurd-cost-is-ignored', () => {
    for (const cost of [-0.01, Number.NaN, Number.POSITIVE_INFINITY, MAX_REPORTED_COST_USD * 2, '0.84', null, { total: 1 }, true]) {
      const usage = mapUsage(wire(cost));
      // The tokens are still believed; only the cost is dropped.
      expect(usage).toEqual({ promptTokens: 194, completionTokens: 2 });
    }
    expect(mapUsage(wire(0))).toEqual({ promptTokens: 194, completionTokens: 2, cost: 0 });
    expect(mapUsage(wire(MAX_REPORTED_COST_USD))?.cost).toBe(MAX_REPORTED_COST_USD);
  });

  it('absurd-cost-in-a-log-line-is-rejected-by-validation', () => {
    const entry = (cost: unknown) => ({ type: 'assistant', id: 'a', parentId: null, timestamp: 't', text: '', toolCalls: [], usage: { promptTokens: 1, completionTokens: 1, cost } });
    expect('entry' in validateEntry(entry(0.5))).toBe(true);
    expect('entry' in validateEntry({ ...entry(0), usage: { promptTokens: 1, completionTokens: 1 } })).toBe(true);
    for (const cost of [-1, MAX_REPORTED_COST_USD + 1, '0.5', null]) expect('error' in validateEntry(entry(cost))).toBe(true);
  });

  it('absurd-cost-on-a-path-is-not-summed', () => {
    const usage = { promptTokens: 10, completionTokens: 1, cost: 5e9 } as Usage;
    const { session } = pathUsage([
      { type: 'user', id: 'u', parentId: null, timestamp: 't', text: 'hi' },
      { type: 'assistant', id: 'a', parentId: 'u', timestamp: 't', text: '', toolCalls: [], usage },
    ]);
    expect(session).toMatchObject({ calls: 1, pricedCalls: 0, cost: 0, promptTokens: 10 });
  });

  it('pi-session-cost-is-imported', () => {
    const text = [
      '{"type":"session","id":"p","timestamp":"2025-01-01T00:00:00Z","cwd":"/x"}',
      '{"type":"message","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input":7,"output":231,"cacheRead":1684,"cacheWrite":9518,"cost":{"total":0.0396837}},"stopReason":"stop","model":"m"}}',
      '{"type":"message","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"again"}],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":-3}},"stopReason":"stop","model":"m"}}',
    ].join('\n');
    const [first, second] = importPiSession(text).entries;
    expect(first?.type === 'assistant' && first.usage?.cost).toBe(0.0396837);
    expect(second?.type === 'assistant' && second.usage && 'cost' in second.usage).toBe(false);
  });
});
