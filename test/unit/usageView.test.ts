// Per-turn and per-branch usage from a session path: tokens, cached share, summaries and cost.
import { describe, expect, it } from 'vitest';
import { RECENT_TURNS, pathUsage, toUsageView } from '../../src/core/views/usageView';
import type { Usage } from '../../src/core/session/entries';
import { PathBuilder } from '../support/sessionPathBuilder';

const usage = (promptTokens: number, completionTokens: number, extra: Partial<Usage> = {}): { usage: Usage } => ({ usage: { promptTokens, completionTokens, ...extra } });

describe('pathUsage', () => {
  it('usage-per-turn-counts-cached-share', () => {
    const b = new PathBuilder();
    b.user('u1', 'fix the   parser\nplease');
    b.assistant('a1', ['c1'], '', usage(10_000, 200));
    b.tool('t1', 'c1');
    b.assistant('a2', [], 'done', usage(12_000, 300, { cachedTokens: 9_000 }));
    b.user('u2', 'now the docs');
    b.assistant('a3', [], 'ok', usage(14_000, 100, { cachedTokens: 12_000 }));
    const { session, turns } = pathUsage(b.path());
    expect(turns).toHaveLength(2);
    expect(turns[0]).toMatchObject({ turn: 1, request: 'fix the parser please', calls: 2, promptTokens: 22_000, cachedTokens: 9_000, outputTokens: 500, when: b.entries[0]?.timestamp });
    expect(turns[1]).toMatchObject({ turn: 2, request: 'now the docs', calls: 1, promptTokens: 14_000, cachedTokens: 12_000, outputTokens: 100 });
    expect(session).toMatchObject({ calls: 3, promptTokens: 36_000, cachedTokens: 21_000, outputTokens: 600, pricedCalls: 0, cost: 0 });
  });

  it('synthetic-continue-stays-in-its-turn-and-compactions-are-counted', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1', [], 'x', usage(90_000, 10, { cost: 0.3 }));
    b.compaction('c1', 'u1', 'summary', { tokensBefore: 90_000, tokensAfter: 8_000 });
    b.user('s1', 'continue').synthetic = true;
    b.assistant('a2', [], 'y', usage(8_500, 20, { cost: 0.05 }));
    const { session, turns } = pathUsage(b.path());
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ calls: 2, summaries: 1, summarizedTokens: 90_000, pricedCalls: 2 });
    expect(turns[0]?.cost).toBeCloseTo(0.35, 10);
    expect(session).toMatchObject({ summaries: 1, summarizedTokens: 90_000 });
  });

  it('failed-calls-without-usage-are-counted-apart', () => {
    const b = new PathBuilder();
    b.assistant('a0', [], 'before any request', usage(100, 1));
    b.user('u1');
    b.assistant('a1', [], 'cut off', { stopReason: 'aborted' });
    b.assistant('a2', [], 'x', usage(100, 5, { cachedTokens: 500 }));
    const { session, turns } = pathUsage(b.path());
    // A call before the first request counts in the total only; a cached figure above the prompt is capped.
    expect(session).toMatchObject({ calls: 2, unreportedCalls: 1, promptTokens: 200, cachedTokens: 100 });
    expect(turns[0]).toMatchObject({ calls: 1, unreportedCalls: 1, promptTokens: 100, cachedTokens: 100 });
  });

  it('only-the-current-branch-counts', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1', [], 'x', usage(1_000, 10, { cost: 1 }));
    b.user('u2');
    b.assistant('a2', [], 'abandoned', usage(5_000, 10, { cost: 2 }));
    b.at('a1');
    b.user('u3');
    b.assistant('a3', [], 'kept', usage(2_000, 10, { cost: 0.5 }));
    const { session, turns } = pathUsage(b.path());
    expect(turns.map((turn) => turn.request)).toEqual(['text of u1', 'text of u3']);
    expect(session.cost).toBe(1.5);
  });
});

describe('toUsageView', () => {
  it('keeps-the-last-turns-and-the-turn-count', () => {
    const b = new PathBuilder();
    for (let i = 1; i <= RECENT_TURNS + 3; i++) {
      b.user(`u${i}`);
      b.assistant(`a${i}`, [], 'x', usage(i * 100, 1));
    }
    const view = toUsageView(b.path());
    expect(view.turnCount).toBe(RECENT_TURNS + 3);
    expect(view.recentTurns.map((turn) => turn.turn)).toEqual([4, 5, 6, 7, 8]);
    expect(view.session.calls).toBe(RECENT_TURNS + 3);
  });

  it('an-empty-path-has-zero-figures', () => {
    expect(toUsageView([])).toEqual({
      session: { calls: 0, unreportedCalls: 0, promptTokens: 0, cachedTokens: 0, outputTokens: 0, pricedCalls: 0, cost: 0, summaries: 0, summarizedTokens: 0 },
      recentTurns: [],
      turnCount: 0,
    });
  });
});
