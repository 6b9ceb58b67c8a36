// Loop guards in the real agent loop: a compaction that would not make room is an error, never applied or repeated.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import type { SummarizeFn } from '../../src/core/compaction/compaction';
import { defaultSettings, type Settings } from '../../src/core/settings/settings';
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

/** A summarizer whose "summary" is longer than everything it replaces. */
function bloatingSummarizer(calls: { count: number }): SummarizeFn {
  return (request) => {
    calls.count++;
    const replaced = request.entries.map((entry) => ('text' in entry ? entry.text : '')).join(' ');
    return Promise.resolve({ summary: `## Goal\n${replaced}\n${replaced}`, files: { read: [], modified: [] }, problems: [], needsReview: false });
  };
}

async function seedLongHistory(): Promise<void> {
  for (let i = 0; i < 8; i++) {
    await fixture.session.log.append({ type: 'user', text: `question ${i} ${'lorem ipsum dolor '.repeat(250)}` });
    await fixture.session.log.append({ type: 'assistant', text: `answer ${i} ${'sit amet consectetur '.repeat(250)}`, toolCalls: [] });
  }
}

/** Runs one request against the seeded history in a 12k window. */
function runWith(settings: Settings, model: ReturnType<typeof scriptedModel>, summarize: SummarizeFn): Promise<AgentEvent[]> {
  return collect(runAgent({ ...baseAgentOptions(fixture, model), settings, contextWindow: 12_000, summarize, userText: 'and now?' }));
}

describe('compaction guards in the loop', () => {
  it('reports a compaction that would not shrink the context and appends no compaction entry', async () => {
    await seedLongHistory();
    const settings = defaultSettings();
    settings.context.maxOutputTokens = 256;
    settings.compaction.reserveTokens = 1024;
    settings.compaction.keepRecentTokens = 1000;
    const calls = { count: 0 };
    const model = scriptedModel([{ text: 'ok' }, { text: 'ok' }]);
    const events = await runWith(settings, model, bloatingSummarizer(calls));
    const errors = events.flatMap((event) => (event.type === 'error' ? [event.message] : []));
    expect(errors.some((message) => /did not shrink/.test(message))).toBe(true);
    expect(fixture.session.log.path().some((entry) => entry.type === 'compaction')).toBe(false);
    expect(calls.count).toBeLessThanOrEqual(2);
  });
});

describe('automatic compaction turned off', () => {
  it('stops before sending an over-budget request and says how to make room, compacting nothing', async () => {
    await seedLongHistory();
    const settings = defaultSettings();
    settings.context.maxOutputTokens = 256;
    settings.compaction.reserveTokens = 1024;
    settings.compaction.auto = false;
    const calls = { count: 0 };
    const model = scriptedModel([{ text: 'should not be asked' }]);
    const events = await runWith(settings, model, bloatingSummarizer(calls));
    const errors = events.flatMap((event) => (event.type === 'error' ? [event.message] : []));
    expect(errors.some((message) => /automatic compaction is off/.test(message) && /\/compact/.test(message))).toBe(true);
    expect(model.requests).toHaveLength(0);
    expect(calls.count).toBe(0);
    expect(fixture.session.log.path().some((entry) => entry.type === 'compaction')).toBe(false);
  });
});
