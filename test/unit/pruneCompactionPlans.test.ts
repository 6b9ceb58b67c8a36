// Prune and cut plans: worked examples and fast-check properties on random sessions and budgets.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planPrune } from '../../src/core/budget/prunePlan';
import { contextSpan } from '../../src/core/budget/pathState';
import { prunedToolResultIds as prunedIds } from '../../src/core/context/contextMarkers';
import { hasNewContentSinceCompaction, planCompaction, shrinkProblem } from '../../src/core/compaction/cutPlan';
import type { SessionEntry } from '../../src/core/session/entries';
import type { EntryCounts } from '../../src/core/tokens/entryTokens';
import { PathBuilder } from '../support/sessionPathBuilder';
import { buildSession, sessionSpec } from '../support/budgetSessions';
import { cutOptions, expectValidCut } from '../support/budgetInvariants';

const pruning = { enabled: true, protectTokens: 40_000, minimumTokens: 20_000, protectTurns: 2, protectedTools: ['skill'] };

function counts(sizes: Record<string, number>): EntryCounts {
  const full = new Map(Object.entries(sizes));
  const pruned = new Map(Object.keys(sizes).filter((id) => id.startsWith('t')).map((id) => [id, 25]));
  return { full, pruned };
}

describe('planPrune', () => {
  function session(): { path: SessionEntry[]; sizes: Record<string, number> } {
    const b = new PathBuilder();
    const sizes: Record<string, number> = {};
    for (let turn = 0; turn < 6; turn++) {
      b.user(`u${turn}`);
      b.assistant(`a${turn}`, [`c${turn}`]);
      b.tool(`t${turn}`, `c${turn}`);
      sizes[`u${turn}`] = 100;
      sizes[`a${turn}`] = 100;
      sizes[`t${turn}`] = 15_000;
    }
    return { path: b.path(), sizes };
  }

  it('protects the last two turns and the newest 40k of older output, then prunes the rest', () => {
    const { path, sizes } = session();
    const plan = planPrune(path, counts(sizes), pruning);
    // t5, t4 are in the protected turns; t3, t2 fill 30k; t1 crosses 40k and is pruned with t0.
    expect(plan.entryIds).toEqual(['t0', 't1']);
    expect(plan.tokensFreed).toBe(2 * (15_000 - 25));
  });

  it('prunes nothing below the minimum, when disabled, or for protected tools', () => {
    const { path, sizes } = session();
    expect(planPrune(path, counts(sizes), { ...pruning, minimumTokens: 40_000 }).entryIds).toEqual([]);
    expect(planPrune(path, counts(sizes), { ...pruning, enabled: false }).entryIds).toEqual([]);
    for (const entry of path) if (entry.type === 'toolResult') entry.toolName = 'skill';
    expect(planPrune(path, counts(sizes), pruning).entryIds).toEqual([]);
  });

  it('stops at an already-pruned result and at the latest compaction', () => {
    const { path, sizes } = session();
    const b = new PathBuilder();
    b.entries.push(...path);
    b.leaf = path.at(-1)!.id;
    b.prune('p', ['t1']);
    expect(planPrune(b.path(), counts(sizes), { ...pruning, minimumTokens: 0 }).entryIds).toEqual([]);
    const withCompaction = [...path.slice(0, 6), { ...path[0]!, id: 'c', type: 'compaction' as const, summary: 's', firstKeptEntryId: 'u1', tokensBefore: 1, tokensAfter: 1, files: { read: [], modified: [] }, edited: false, auto: true }, ...path.slice(6)];
    const plan = planPrune(withCompaction, counts(sizes), { ...pruning, minimumTokens: 0 });
    expect(plan.entryIds).toEqual(['t1']);
  });

  it('property: never touches the protected turns, the protected window or protected tools', () => {
    fc.assert(
      fc.property(sessionSpec, fc.integer({ min: 0, max: 80_000 }), fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: 0, max: 4 }), (spec, protectTokens, minimumTokens, protectTurns) => {
        const { path, counts: entryCounts } = buildSession(spec);
        const settings = { ...pruning, protectTokens, minimumTokens, protectTurns };
        const plan = planPrune(path, entryCounts, settings);
        if (plan.entryIds.length === 0) return;
        expect(plan.tokensFreed).toBeGreaterThanOrEqual(minimumTokens);
        const { messages } = contextSpan(path);
        const already = prunedIds(path);
        const chosen = new Set(plan.entryIds);
        let turns = 0;
        let newerOutput = 0;
        for (let index = messages.length - 1; index >= 0; index--) {
          const entry = messages[index]!;
          if (entry.type === 'user') turns++;
          if (entry.type !== 'toolResult') continue;
          if (chosen.has(entry.id)) {
            expect(turns).toBeGreaterThanOrEqual(protectTurns);
            expect(entry.toolName).not.toBe('skill');
            expect(already.has(entry.id)).toBe(false);
            expect(newerOutput + entryCounts.full.get(entry.id)!).toBeGreaterThan(protectTokens);
          }
          if (turns >= protectTurns && entry.toolName !== 'skill') newerOutput += entryCounts.full.get(entry.id)!;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('planCompaction', () => {
  it('cuts at a turn boundary keeping at least keepRecentTokens', () => {
    const b = new PathBuilder();
    const sizes: Record<string, number> = {};
    for (let turn = 0; turn < 4; turn++) {
      b.user(`u${turn}`);
      b.assistant(`a${turn}`, [`c${turn}`]);
      b.tool(`t${turn}`, `c${turn}`);
      Object.assign(sizes, { [`u${turn}`]: 1000, [`a${turn}`]: 1000, [`t${turn}`]: 8000 });
    }
    const options = cutOptions(15_000, 100_000);
    const plan = planCompaction(b.path(), counts(sizes), options)!;
    expect(plan.firstKeptEntryId).toBe('u2');
    expect(plan.summarizeEntryIds).toEqual(['u0', 'a0', 't0', 'u1', 'a1', 't1']);
    expect(plan.turnPrefixEntryIds).toEqual([]);
    expect(plan.tokensKept).toBe(20_000);
    expect(plan.tokensToSummarize).toBe(20_000);
    expectValidCut(b.path(), plan, options);
  });

  it('splits a turn larger than keepRecentTokens at an assistant message, never between a call and its result', () => {
    const b = new PathBuilder();
    b.user('u0');
    b.assistant('a0');
    b.user('u1');
    for (let step = 0; step < 5; step++) {
      b.assistant(`a1_${step}`, [`c${step}`]);
      b.tool(`t1_${step}`, `c${step}`);
    }
    const sizes = Object.fromEntries(b.entries.map((entry) => [entry.id, entry.type === 'toolResult' ? 6000 : 500]));
    const options = cutOptions(12_000, 100_000);
    const plan = planCompaction(b.path(), counts(sizes), options)!;
    expect(plan.firstKeptEntryId).toBe('a1_3');
    expect(plan.summarizeEntryIds).toEqual(['u0', 'a0']);
    expect(plan.turnPrefixEntryIds).toEqual(['u1', 'a1_0', 't1_0', 'a1_1', 't1_1', 'a1_2', 't1_2']);
    expectValidCut(b.path(), plan, options);
  });

  it('never summarizes only the request of the turn it splits (that request is carried verbatim anyway)', () => {
    // One request answered by one assistant message with six tool calls: the only cut inside the turn would sit
    // right after the request, so the summary would hold nothing but a request that is sent again as it is.
    const b = new PathBuilder();
    b.user('u0');
    b.assistant('a0', ['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    for (let call = 0; call < 6; call++) b.tool(`t${call}`, `c${call}`);
    const sizes = Object.fromEntries(b.entries.map((entry) => [entry.id, entry.type === 'toolResult' ? 2000 : 300]));
    expect(planCompaction(b.path(), counts(sizes), cutOptions(3_000, 100_000))).toBeNull();
    // With a second step in the turn, the cut moves to that step and the first step is what gets summarized.
    b.assistant('a1', ['c6']);
    b.tool('t6', 'c6');
    Object.assign(sizes, { a1: 300, t6: 2000 });
    const plan = planCompaction(b.path(), counts(sizes), cutOptions(3_000, 100_000))!;
    expect(plan.firstKeptEntryId).toBe('a1');
    expect(plan.summarizeEntryIds).toEqual(['u0', 'a0', 't0', 't1', 't2', 't3', 't4', 't5']);
  });

  it('a compaction the person asks for summarizes at least what a summary may cost, keeping less when it must', () => {
    // A short first turn, then three turns that all fit in keepRecentTokens: the turn-boundary cut summarizes only
    // the short turn, and its summary would cost more than it replaces.
    const b = new PathBuilder();
    const sizes: Record<string, number> = { u0: 20, a0: 30 };
    b.user('u0');
    b.assistant('a0');
    for (let turn = 1; turn <= 3; turn++) {
      b.user(`u${turn}`);
      b.assistant(`a${turn}_0`, [`c${turn}_0`]);
      b.tool(`t${turn}_0`, `c${turn}_0`);
      b.assistant(`a${turn}_1`, [`c${turn}_1`]);
      b.tool(`t${turn}_1`, `c${turn}_1`);
      b.assistant(`a${turn}_2`);
      Object.assign(sizes, { [`u${turn}`]: 20, [`a${turn}_0`]: 40, [`t${turn}_0`]: 600, [`a${turn}_1`]: 40, [`t${turn}_1`]: 600, [`a${turn}_2`]: 60 });
    }
    const automatic = planCompaction(b.path(), counts(sizes), cutOptions(8_000, 100_000))!;
    expect(automatic.summarizeEntryIds).toEqual(['u0', 'a0']);
    const asked = planCompaction(b.path(), counts(sizes), { ...cutOptions(8_000, 100_000), minimumSummarized: 1_024 })!;
    expect(asked.tokensToSummarize).toBeGreaterThanOrEqual(1_024);
    expect(asked.firstKeptEntryId).toBe('a1_2');
    expectValidCut(b.path(), asked, { ...cutOptions(8_000, 100_000), minimumSummarized: 1_024 });
    // Never further than the last cut, and never to a cut that would summarize a request alone.
    const most = planCompaction(b.path(), counts(sizes), { ...cutOptions(8_000, 100_000), minimumSummarized: 1_000_000 })!;
    expect(most.firstKeptEntryId).toBe('a3_2');
  });

  it('never crosses the previous compaction and returns null when nothing can be cut', () => {
    const b = new PathBuilder();
    b.user('u0');
    b.assistant('a0');
    b.user('u1');
    b.assistant('a1');
    b.compaction('c1', 'u1');
    b.user('u2');
    b.assistant('a2');
    const sizes = { u0: 9000, a0: 9000, u1: 9000, a1: 9000, u2: 9000, a2: 9000 };
    const plan = planCompaction(b.path(), counts(sizes), cutOptions(10_000, 100_000))!;
    expect(plan.summarizeEntryIds).toEqual(['u1', 'a1']);
    expect(plan.firstKeptEntryId).toBe('u2');
    const single = new PathBuilder();
    single.user('u0');
    expect(planCompaction(single.path(), counts({ u0: 50_000 }), cutOptions(10, 1000))).toBeNull();
  });

  it('shrinks what is kept when it would not leave room after compaction', () => {
    const b = new PathBuilder();
    for (let turn = 0; turn < 3; turn++) {
      b.user(`u${turn}`);
      b.assistant(`a${turn}`);
    }
    const sizes = { u0: 1000, a0: 1000, u1: 6000, a1: 6000, u2: 3000, a2: 3000 };
    const options = cutOptions(20_000, 16_000);
    const plan = planCompaction(b.path(), counts(sizes), options)!;
    expect(plan.tokensKept).toBeLessThanOrEqual(8000);
    expect(plan.firstKeptEntryId).toBe('u2');
    expectValidCut(b.path(), plan, options);
  });

  it('property: the cut never orphans a tool pair and what is kept fits after compaction', () => {
    fc.assert(
      fc.property(sessionSpec, fc.integer({ min: 1000, max: 60_000 }), fc.integer({ min: 8000, max: 250_000 }), (spec, keepRecentTokens, usable) => {
        const { path, counts: entryCounts } = buildSession(spec);
        const options = cutOptions(keepRecentTokens, usable);
        const plan = planCompaction(path, entryCounts, options);
        if (plan) expectValidCut(path, plan, options);
      }),
      { numRuns: 400 },
    );
  });
});

describe('compaction guards', () => {
  it('refuses a second automatic compaction without new content, and flags compactions that do not shrink', () => {
    const b = new PathBuilder();
    b.user('u0');
    expect(hasNewContentSinceCompaction(b.path())).toBe(true);
    b.compaction('c', null);
    expect(hasNewContentSinceCompaction(b.path())).toBe(false);
    b.user('u1');
    expect(hasNewContentSinceCompaction(b.path())).toBe(true);
    expect(shrinkProblem(100_000, 30_000)).toBeNull();
    expect(shrinkProblem(100_000, 95_000)).toMatch(/did not shrink/);
  });
});
