// The cache-aware trigger: after the provider's cache lifetime has passed without a model call, compaction starts at half the usable budget (never below what a compaction leaves); with a warm cache or the setting at 0, nothing changes.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { decideBeforeCall, idleSeconds, type Budget } from '../../src/core/budget/budget';
import { defaultSettings, SETTING_SPECS, type Settings } from '../../src/core/settings/settings';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

function budget(used: number, usable = 10_000): Budget {
  return { contextWindow: usable + 1000, windowKnown: true, outputReserve: 1000, usable, used, basis: 'estimate', estimated: true, exact: true, breakdown: { system: 500, instructions: 0, tools: 500, summary: 0, messages: used - 1000, toolResults: 0 }, free: usable - used, percent: (used / usable) * 100 };
}

const decision = { autoCompact: true, pruningEnabled: false, prunableTokens: 0, pruneAtPercent: 80, compactAt: 10_000 };

describe('the cold-cache decision', () => {
  it('compacts above the cold threshold only when one is given, and never with automatic compaction off', () => {
    expect(decideBeforeCall(budget(6000), decision)).toBe('ok');
    expect(decideBeforeCall(budget(6000), { ...decision, coldCompactAt: 5000 })).toBe('compact');
    expect(decideBeforeCall(budget(4000), { ...decision, coldCompactAt: 5000 })).toBe('ok');
    expect(decideBeforeCall(budget(6000), { ...decision, autoCompact: false, coldCompactAt: 5000 })).toBe('ok');
  });

  it('measures idle time from the last model reply to the newest entry', () => {
    const at = (seconds: number): string => new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString();
    expect(idleSeconds([{ type: 'user', timestamp: at(0) }, { type: 'assistant', timestamp: at(10) }, { type: 'toolResult', timestamp: at(11) }, { type: 'user', timestamp: at(700) }])).toBe(690);
    expect(idleSeconds([{ type: 'user', timestamp: at(0) }])).toBeNull();
    expect(idleSeconds([{ type: 'assistant', timestamp: 'garbage' }, { type: 'user', timestamp: at(5) }])).toBeNull();
  });

  it('is a setting with bounds (seconds, 0 = off)', () => {
    expect(SETTING_SPECS['compaction.cacheLifetimeSeconds']).toMatchObject({ kind: 'number', minimum: 0 });
  });
});

/** History of about 65 % of a 12k window's usable budget, its last reply ten minutes before `now`. */
async function seedIdleHistory(): Promise<void> {
  const old = new Date(Date.now() - 10 * 60 * 1000).toISOString();
  for (let i = 0; i < 6; i++) {
    await fixture.session.log.append({ type: 'user', text: `question ${i} ${'lorem ipsum '.repeat(200)}`, timestamp: old });
    await fixture.session.log.append({ type: 'assistant', text: `answer ${i} ${'dolor sit amet '.repeat(200)}`, toolCalls: [], stopReason: 'stop', timestamp: old });
  }
}

function settingsWith(lifetime: number): Settings {
  const settings = defaultSettings();
  settings.compaction.cacheLifetimeSeconds = lifetime;
  return settings;
}

describe('the cache-aware trigger in the loop', () => {
  it('compacts before the first call of a request that comes after the cache expired', async () => {
    await seedIdleHistory();
    const agent = { ...baseAgentOptions(fixture, scriptedModel([{ text: 'ok' }])), settings: settingsWith(300), contextWindow: 12_000 };
    const events = await collect(runAgent(agent));
    expect(events.map((event) => event.type)).toContain('compaction');
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
  });

  it('does not compact the same history while the cache is still warm, or with the setting at 0', async () => {
    await seedIdleHistory();
    const warm = { ...baseAgentOptions(fixture, scriptedModel([{ text: 'ok' }])), settings: settingsWith(3600), contextWindow: 12_000 };
    expect((await collect(runAgent(warm))).map((event) => event.type)).not.toContain('compaction');
    const off = { ...baseAgentOptions(fixture, scriptedModel([{ text: 'ok' }])), settings: settingsWith(0), contextWindow: 12_000, userText: 'again' };
    expect((await collect(runAgent(off))).map((event) => event.type)).not.toContain('compaction');
  });
});
