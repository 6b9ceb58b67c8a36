// The value bench's verdict (issue 36): the paired block bootstrap, the rule that says when the defaults are beaten, leave one family out, families from file names, and one race for all (reservations, closing calls).
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultsOnFrontier, type CostRun, type PolicyBill } from '../../bench/costBench';
import { sessionFamily, type RecordedTurn } from '../../bench/costWorkloads';
import { choose, familyWorkloads, leaveOneFamilyOut, type WindowBills } from '../../bench/leaveOneOut';
import { replayOurs } from '../../bench/ourReplay';
import { beatsDefaults, pairedDifference, type Comparison, type KeyedSample } from '../../bench/pairedVerdict';
import { OPENCODE, openCodeUsable, type PeerPolicy } from '../../bench/peerPolicies';
import { replayPeer } from '../../bench/peerReplay';
import { PrefixCache } from '../../bench/prefixCache';
import { standInSummary } from '../../bench/standInSummary';
import { CLAUDE_CODE_SUMMARY_TOKENS, PI_SUMMARY_TOKENS, summaryLength } from '../../bench/summaryLengths';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { PI_FIXTURES_DIR } from '../support/fixturePaths';

/** Samples of one session: `available(i)` of 10 needs at call i. */
const session = (workload: string, calls: number, available: (i: number) => number): KeyedSample[] => Array.from({ length: calls }, (_, call) => ({ workload, call, needs: 10, available: available(call) }));

describe('the paired availability difference', () => {
  it('is exact when every call differs alike, and the same on every run', () => {
    const base = session('a', 200, () => 5);
    const other = session('a', 200, () => 6);
    const result = pairedDifference(base, other);
    expect(result.delta).toBeCloseTo(0.1);
    expect(result.low).toBeCloseTo(0.1);
    expect(result.high).toBeCloseTo(0.1);
    expect(pairedDifference(base, other)).toEqual(result);
  });

  it('cancels what both policies share: far narrower than the two unpaired intervals', () => {
    // Hard and easy stretches of a session hit both policies alike; the other policy is one point better throughout.
    const hardness = (i: number): number => (Math.floor(i / 40) % 2 === 0 ? 2 : 8);
    const base = session('a', 400, hardness);
    const other = session('a', 400, (i) => hardness(i) + (i % 10 === 0 ? 1 : 0));
    const paired = pairedDifference(base, other);
    const unpaired = pairedDifference(base, base.map((s) => ({ ...s, available: 0 })));
    expect(paired.delta).toBeCloseTo(0.01);
    expect((paired.high ?? 1) - (paired.low ?? 0)).toBeLessThan(0.01);
    // The base policy's own share moves by far more than that across resamples.
    expect((unpaired.high ?? 0) - (unpaired.low ?? 0)).toBeGreaterThan(0.05);
  });

  it('resamples blocks of neighbouring calls, so a difference that comes in runs gets a wider interval than single calls would give', () => {
    // The other policy is better over whole runs of 32 calls and worse over others: neighbours are correlated.
    const base = session('a', 640, () => 5);
    const other = session('a', 640, (i) => (Math.floor(i / 32) % 3 === 0 ? 8 : 4));
    const blocks = pairedDifference(base, other);
    const singles = pairedDifference(base, other, 1000, 1);
    expect(blocks.delta).toBeCloseTo(singles.delta ?? 0);
    expect((blocks.high ?? 0) - (blocks.low ?? 0)).toBeGreaterThan(2 * ((singles.high ?? 0) - (singles.low ?? 0)));
    expect(blocks.blocks).toBe(20);
  });

  it('pairs calls by session and call: a call only one policy has counts for neither', () => {
    const base = [...session('a', 64, () => 5), ...session('b', 64, () => 5)];
    const other = session('a', 64, () => 7);
    const result = pairedDifference(base, other);
    expect(result.delta).toBeCloseTo(0.2);
    expect(result.blocks).toBe(2);
  });
});

describe('the rule that says when the defaults are beaten', () => {
  const comparison = (costDelta: number, delta: number, low: number, costDeltaWritePremium = costDelta): Comparison => ({ costDelta, costDeltaWritePremium, pairedAvailabilityDelta: delta, pairedLow: low, pairedHigh: delta + 0.01 });
  it('counts a policy 2 % cheaper whose paired interval stays above −0.5 points', () => {
    expect(beatsDefaults(comparison(-0.03, 0, -0.004))).toBe('cheaper at equal availability');
    expect(beatsDefaults(comparison(-0.03, 0, -0.006))).toBeNull();
    expect(beatsDefaults(comparison(-0.019, 0, 0.002))).toBeNull();
    // Cheaper enough under the cache-write premium alone is enough.
    expect(beatsDefaults(comparison(-0.01, 0, -0.004, -0.021))).toBe('cheaper at equal availability');
  });

  it('counts a policy more than a point better at no more cost', () => {
    expect(beatsDefaults(comparison(0, 0.011, 0.004))).toBe('better at no more cost');
    expect(beatsDefaults(comparison(0.001, 0.02, 0.01))).toBeNull();
    expect(beatsDefaults(comparison(0.001, 0.02, 0.01, -0.001))).toBe('better at no more cost');
    expect(beatsDefaults(comparison(-0.01, 0.009, 0.004))).toBeNull();
  });

  it('judges the defaults against the peers only: a swept setting of ours that beats them is a candidate, not a rival', () => {
    const bill = (available: number, cost: number): PolicyBill => ({
      promptTokens: 0, cachedTokens: 0, outputTokens: 0, summaryCalls: 0, summaryInputTokens: 0, cost, costWritePremium: cost, compactions: 0, prunes: 0, refusals: 0, errors: 0,
      retention: [], needs: [], calls: session('s', 128, () => available), dropped: 0, recoveryCost: 0, byWorkload: { s: { cost, costWritePremium: cost } },
    });
    const run = (peer: PolicyBill): CostRun => ({ bills: { '8192': { ours: bill(5, 10), opencode: peer } }, sweep: { '8192': { oursNoPruning: bill(5, 9) } }, workloads: [], seconds: 0, sessions: 'test' });
    expect(defaultsOnFrontier(run(bill(5, 10.5)), '8192')).toBe(true);
    expect(defaultsOnFrontier(run(bill(5, 9.7)), '8192')).toBe(false);
    expect(defaultsOnFrontier(run(bill(6, 10)), '8192')).toBe(false);
  });
});

describe('leave one family out', () => {
  const bill = (byWorkload: Record<string, { available: number; cost: number }>): PolicyBill => ({
    promptTokens: 0, cachedTokens: 0, outputTokens: 0, summaryCalls: 0, summaryInputTokens: 0, compactions: 0, prunes: 0, refusals: 0, errors: 0, retention: [], needs: [], dropped: 0, recoveryCost: 0,
    cost: Object.values(byWorkload).reduce((sum, w) => sum + w.cost, 0),
    costWritePremium: Object.values(byWorkload).reduce((sum, w) => sum + w.cost, 0),
    calls: Object.entries(byWorkload).flatMap(([name, w]) => session(name, 64, () => w.available)),
    byWorkload: Object.fromEntries(Object.entries(byWorkload).map(([name, w]) => [name, { cost: w.cost, costWritePremium: w.cost }])),
  });
  const families = { a1: 'a', a2: 'a', b1: 'b', c1: 'c' };

  it('chooses without the held-out family and judges on it alone', () => {
    // "tuned" is cheaper than the defaults on families a and b; on c the peer is 20 points better at its cost. The
    // defaults hold everywhere.
    const bills: WindowBills = {
      candidates: {
        ours: bill({ a1: { available: 5, cost: 10 }, a2: { available: 5, cost: 10 }, b1: { available: 5, cost: 10 }, c1: { available: 5, cost: 7.5 } }),
        tuned: bill({ a1: { available: 5, cost: 8 }, a2: { available: 5, cost: 8 }, b1: { available: 5, cost: 8 }, c1: { available: 3, cost: 8 } }),
      },
      peers: { opencode: bill({ a1: { available: 5, cost: 10.5 }, a2: { available: 5, cost: 10.5 }, b1: { available: 5, cost: 10.5 }, c1: { available: 5, cost: 8 } }) },
    };
    const result = leaveOneFamilyOut(bills, families);
    expect(result.families).toEqual(['a', 'b', 'c']);
    const held = Object.fromEntries(result.heldOut.map((entry) => [entry.family, entry]));
    // Without c, "tuned" is never beaten and is cheaper: chosen, then beaten on c, which it never saw.
    expect(held.c?.chosen).toBe('tuned');
    expect(held.c?.beatenBy).toEqual(['opencode']);
    expect(held.c?.versus.opencode?.pairedAvailabilityDelta).toBeCloseTo(0.2);
    // With c among the training families, "tuned" is beaten there and the defaults are chosen.
    expect(held.a?.chosen).toBe('ours');
    expect(held.a?.beatenBy).toEqual([]);
    expect(result.chosenOnAll).toBe('ours');
    expect(result.outOfSample).toBe(false);
    // Pooled out of sample, each session is judged by the choice made without its family: c's calls and cost are
    // "tuned"'s (3 of 10 there), a's and b's the defaults'; the peer is 5 points better pooled, for 3.9 % more.
    expect(result.pooled.opencode?.pairedAvailabilityDelta).toBeCloseTo(0.05);
    expect(result.pooled.opencode?.costDelta).toBeCloseTo(39.5 / 38 - 1);
    expect(result.pooled.opencode?.beaten).toBeNull();
  });

  it('counts a family once however many peers beat a candidate there', () => {
    const peer = (b: number, c: number) => bill({ a1: { available: 5, cost: 9 }, b1: { available: 5, cost: b }, c1: { available: 5, cost: c } });
    const bills: WindowBills = {
      // "ours" is beaten on family a by three peers that behave alike (three pairs, one family); "other" is beaten on
      // b by Claude Code and on c by pi (two pairs, two families).
      candidates: {
        ours: bill({ a1: { available: 5, cost: 10 }, b1: { available: 5, cost: 8 }, c1: { available: 5, cost: 10 } }),
        other: bill({ a1: { available: 5, cost: 8 }, b1: { available: 5, cost: 10 }, c1: { available: 5, cost: 13 } }),
      },
      peers: { pi: peer(10.5, 12), opencode: peer(10.5, 14), claudeCodeLow: peer(9, 14) },
    };
    expect(leaveOneFamilyOut(bills, { a1: 'a', b1: 'b', c1: 'c' }).chosenOnAll).toBe('ours');
  });

  it('keeps the defaults when a candidate helps the pooled sessions but hurts one family', () => {
    const bills: WindowBills = {
      // "pooled" is far cheaper on a's big session and dearer on b's small one: better pooled, worse for b's agent.
      candidates: { ours: bill({ a1: { available: 5, cost: 100 }, b1: { available: 5, cost: 10 } }), pooled: bill({ a1: { available: 5, cost: 80 }, b1: { available: 5, cost: 11 } }) },
      peers: { pi: bill({ a1: { available: 1, cost: 200 }, b1: { available: 1, cost: 20 } }) },
    };
    const families = { a1: 'a', b1: 'b' };
    expect(leaveOneFamilyOut(bills, families).chosenOnAll).toBe('ours');
    // Held out b, the candidate helps every training family (a): chosen, then judged on b.
    expect(leaveOneFamilyOut(bills, families).heldOut.find((entry) => entry.family === 'b')?.chosen).toBe('pooled');
  });

  it('breaks a tie on the rule by availability less the log of cost, on the training families pooled', () => {
    const bills: WindowBills = {
      candidates: { ours: bill({ a1: { available: 5, cost: 10 }, b1: { available: 5, cost: 10 } }), better: bill({ a1: { available: 6, cost: 10.5 }, b1: { available: 6, cost: 10.5 } }) },
      peers: { pi: bill({ a1: { available: 1, cost: 20 }, b1: { available: 1, cost: 20 } }) },
    };
    const byFamily = familyWorkloads({ a1: 'a', b1: 'b' });
    const result = leaveOneFamilyOut(bills, { a1: 'a', b1: 'b' });
    // +10 points for 5 % more cost: 10 − 50 × ln(1.05) ≈ 7.6 points of utility.
    expect(result.chosenOnAll).toBe('better');
    expect(result.heldOut.map((entry) => entry.chosen)).toEqual(['better', 'better']);
    expect(byFamily.get('a')).toEqual(new Set(['a1']));
    expect(typeof choose).toBe('function');
  });
});

describe('summary lengths', () => {
  it("recounts pi's two recorded summaries as the length its prompt produces, and keeps every stand-in within its cap", async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const text = readFileSync(nodePath.join(PI_FIXTURES_DIR, 'before-compaction.jsonl'), 'utf8');
    const summaries = text.split('\n').flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { type?: string; summary?: string };
        return entry.type === 'compaction' && typeof entry.summary === 'string' ? [entry.summary] : [];
      } catch {
        return [];
      }
    });
    expect(summaries).toHaveLength(2);
    const mean = summaries.reduce((sum, summary) => sum + counter.countText(summary), 0) / summaries.length;
    expect(Math.abs(mean - PI_SUMMARY_TOKENS)).toBeLessThanOrEqual(1);
    expect(summaryLength(CLAUDE_CODE_SUMMARY_TOKENS, 8_000)).toBe(4_251);
    expect(summaryLength(CLAUDE_CODE_SUMMARY_TOKENS, 2_048)).toBe(1_638);
    const source = Array.from({ length: 400 }, (_, i) => `src/module${i}/file${i}.ts loadThing${i}`).join('\n');
    for (const size of [300, 819, 1_037, 4_251]) {
      const summary = standInSummary(size, source, (t) => counter.countText(t));
      expect(counter.countText(summary)).toBeLessThanOrEqual(size);
      expect(counter.countText(summary)).toBeGreaterThan(size * 0.8);
    }
  });
});

describe('session families', () => {
  it('come from the header when the file name starts with it, else from the name up to its first dash', () => {
    expect(sessionFamily('claude-code-m-claude-c76e5be5.jsonl.gz', { provider: 'claude-code' })).toBe('claude-code');
    expect(sessionFamily('mini-swe-agent-django__django-16560.jsonl.gz', { provider: 'mini-swe-agent' })).toBe('mini-swe-agent');
    expect(sessionFamily('codex-zo-qore-019a9013.jsonl.gz', {})).toBe('codex');
    expect(sessionFamily('goose-session-1.jsonl', { provider: 'anthropic' })).toBe('goose');
  });
});

describe('one race for all', () => {
  const step = (i: number, size: number) => ({ text: `step ${i}`, calls: [{ name: 'read_file', args: JSON.stringify({ path: `src/file${i}.ts` }), output: `export const value${i} = 1;\n${'word '.repeat(size)}` }] });

  it("refuses a peer's call whose prompt plus its own max_tokens exceeds the window, as the server refuses ours", async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const setup = { systemPrompt: 'system', tools: [], window: 8192, counter, meter: new PrefixCache(counter) };
    // No threshold compaction: only the server's fit test can make the policy compact.
    const never: PeerPolicy = { ...OPENCODE, threshold: () => Number.POSITIVE_INFINITY };
    const turns: RecordedTurn[] = [{ user: 'read them', steps: [step(0, 2500), step(1, 2500), step(2, 2500)], final: 'done', finalCall: true }];
    const reserving = replayPeer(never, turns, setup);
    const reservingNothing = replayPeer({ ...never, maxOutputTokens: () => 0 }, turns, setup);
    // About 6,000 tokens of prompt fit the window, but not with OpenCode's 2,048 of max_tokens at 8k.
    expect(reservingNothing.refusals).toBe(0);
    expect(reservingNothing.compactions).toBe(0);
    expect(reserving.refusals).toBeGreaterThan(0);
    expect(reserving.compactions).toBeGreaterThan(0);
    expect(reserving.dropped).toEqual([]);
  });

  it('drops a step when the summary request itself cannot fit with its max_tokens, leaving the context as it was', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const setup = { systemPrompt: 'system', tools: [], window: 8192, counter, meter: new PrefixCache(counter) };
    const huge: PeerPolicy = { ...OPENCODE, threshold: () => Number.POSITIVE_INFINITY, summaryMaxTokens: () => 8192 };
    const turns: RecordedTurn[] = [{ user: 'read them', steps: [step(0, 2500), step(1, 2500), step(2, 2500)], final: 'done', finalCall: true }];
    const run = replayPeer(huge, turns, setup);
    expect(run.compactions).toBe(0);
    expect(run.errors.some((error) => error.includes('summary request did not fit'))).toBe(true);
    expect(run.dropped.length).toBeGreaterThan(0);
  });

  it("computes current OpenCode's usable budget as its newest overflow.ts: context − max output − reserve", () => {
    expect(openCodeUsable(32_000)).toBe(16_000);
    expect(openCodeUsable(8_192)).toBe(4_096);
    expect(openCodeUsable(200_000)).toBe(148_000);
  });

  it('makes no call the recording did not make: a turn recorded without a reply stops after its last tool result, for ours and the peers', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const meter = new PrefixCache(counter);
    const turns = (finalCall: boolean): RecordedTurn[] => [
      { user: 'first request', steps: [step(0, 50), step(1, 50)], final: finalCall ? 'done' : '', finalCall },
      { user: 'second request', steps: [step(2, 50)], final: 'done', finalCall: true },
    ];
    for (const finalCall of [true, false]) {
      const ours = await replayOurs(turns(finalCall), 32_000, counter, meter);
      const peer = replayPeer(OPENCODE, turns(finalCall), { systemPrompt: ours.systemPrompt, tools: ours.tools, window: 32_000, counter, meter });
      const expected = 2 + 1 + (finalCall ? 1 : 0) + 1;
      expect(ours.calls.filter((call) => call.kind === 'main')).toHaveLength(expected);
      expect(peer.calls.filter((call) => call.kind === 'main')).toHaveLength(expected);
      // The next request still runs in full after a stopped one.
      expect(ours.dropped).toEqual([]);
      expect(ours.trace.filter((item) => item.kind === 'reply')).toHaveLength(expected);
    }
  });
});
