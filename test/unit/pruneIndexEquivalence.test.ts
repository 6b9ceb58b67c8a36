// The incremental prune plan (what the meter uses each turn) equals planPrune's full walk after any sequence of turns, markers and forks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planPrune, type EntryCosts } from '../../src/core/budget/prunePlan';
import { planPruneIncremental } from '../../src/core/budget/pruneIndex';
import { defaultSettings, type Settings } from '../../src/core/settings/settings';
import type { SessionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';
import { CountCache } from '../../src/core/tokens/countCache';
import { countPath, type EntryCounts } from '../../src/core/tokens/entryTokens';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { PathBuilder } from '../support/sessionPathBuilder';

type Op =
  | { kind: 'turn'; calls: number; size: number; tool: number; synthetic: boolean }
  | { kind: 'prune' | 'pin' | 'unpin' | 'drop' | 'undrop' | 'compact' | 'branch' | 'label'; pick: number }
  | { kind: 'settings'; turns: number; protect: number; minimum: number; tools: number; ratio: number };

const TOOLS = ['read_file', 'run_command', 'grep'] as const;
const RATIOS = [1, 0.83, 1.37] as const;

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('turn' as const), calls: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 0, max: 120 }), tool: fc.nat(), synthetic: fc.boolean() }) },
  ...(['prune', 'pin', 'unpin', 'drop', 'undrop', 'compact', 'branch', 'label'] as const).map((kind) => ({ weight: 1, arbitrary: fc.record({ kind: fc.constant(kind), pick: fc.nat() }) })),
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('settings' as const), turns: fc.integer({ min: 0, max: 3 }), protect: fc.integer({ min: 0, max: 400 }), minimum: fc.integer({ min: 0, max: 150 }), tools: fc.integer({ min: 0, max: 3 }), ratio: fc.integer({ min: 0, max: 2 }) }) },
);

function pick<T>(list: readonly T[], at: number): T | undefined {
  return list.length > 0 ? list[at % list.length] : undefined;
}

function scaled(counts: EntryCounts, ratio: number): EntryCosts {
  if (ratio === 1) return counts;
  const scale = (tokens: number | undefined): number | undefined => (tokens === undefined ? undefined : Math.round(tokens * ratio));
  return { full: { get: (id) => scale(counts.full.get(id)) }, pruned: { get: (id) => scale(counts.pruned.get(id)) } };
}

function apply(builder: PathBuilder, step: Op, n: number): void {
  const path = builder.path();
  const messages = path.filter(isMessageEntry);
  const results = messages.filter((entry) => entry.type === 'toolResult');
  switch (step.kind) {
    case 'turn': {
      const user = builder.user(`u${n}`, `request ${n}`);
      if (step.synthetic) (user as { synthetic?: boolean }).synthetic = true;
      const calls = Array.from({ length: step.calls }, (_, i) => `c${n}-${i}`);
      const assistant = builder.assistant(`a${n}`, calls, `reply ${n}`);
      assistant.toolCalls.forEach((call, i) => (call.name = TOOLS[(step.tool + i) % TOOLS.length] as string));
      calls.forEach((call, i) => {
        const result = builder.tool(`t${n}-${i}`, call, `output ${n} ${'word '.repeat(step.size + i * 7)}`);
        result.toolName = TOOLS[(step.tool + i) % TOOLS.length] as string;
      });
      return;
    }
    case 'prune': {
      const chosen = results.filter((_, i) => (i + step.pick) % 3 === 0).map((entry) => entry.id);
      if (chosen.length > 0) builder.prune(`p${n}`, chosen);
      return;
    }
    case 'pin':
    case 'unpin': {
      const target = pick(messages, step.pick);
      if (target) builder.pin(`pin${n}`, target.id, step.kind === 'pin');
      return;
    }
    case 'drop':
    case 'undrop': {
      const target = pick(messages, step.pick);
      if (target) builder.drop(`d${n}`, [target.id], step.kind === 'drop');
      return;
    }
    case 'compact':
      builder.compaction(`k${n}`, pick(messages, step.pick)?.id ?? null);
      return;
    case 'branch':
      builder.at(pick(path, step.pick)?.id ?? null);
      return;
    case 'label':
      builder.entries.push({ type: 'label', id: `l${n}`, parentId: builder.leaf, timestamp: '2025-01-01T00:00:00.000Z', targetId: builder.leaf ?? '', label: 'note' });
      builder.at(`l${n}`);
      return;
    case 'settings':
      return;
  }
}

describe('incremental prune plan', () => {
  it('equals planPrune after every step (turns, prunes, pins, drops, compactions, forks, ratio and settings changes)', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    fc.assert(
      fc.property(fc.array(op, { minLength: 15, maxLength: 80 }), (ops) => {
        const builder = new PathBuilder();
        const cache = new CountCache();
        let pruning: Settings['pruning'] = { ...defaultSettings().pruning, protectTurns: 1, protectTokens: 60, minimumTokens: 20 };
        let ratio = 1;
        for (const [n, step] of ops.entries()) {
          apply(builder, step, n);
          if (step.kind === 'settings') {
            pruning = { ...pruning, protectTurns: step.turns, protectTokens: step.protect, minimumTokens: step.minimum, protectedTools: TOOLS.slice(0, step.tools % 3) };
            ratio = RATIOS[step.ratio] as number;
          }
          const path: SessionEntry[] = builder.path();
          const counts = countPath(path, counter, cache);
          const costs = scaled(counts, ratio);
          expect(planPruneIncremental(path, counts, costs, ratio, pruning)).toEqual(planPrune(path, costs, pruning));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('takes planPrune itself for counts that are not a view of the path', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const builder = new PathBuilder();
    builder.user('u1');
    builder.assistant('a1', ['c1']);
    builder.tool('t1', 'c1', 'word '.repeat(500));
    builder.user('u2');
    const path = builder.path();
    const counts = { full: new Map(countPath(path, counter, new CountCache()).full), pruned: new Map([['t1', 20]]) };
    const pruning = { ...defaultSettings().pruning, protectTurns: 1, protectTokens: 0, minimumTokens: 0 };
    expect(planPruneIncremental(path, counts, counts, 1, pruning)).toEqual(planPrune(path, counts, pruning));
    expect(planPrune(path, counts, pruning).entryIds).toEqual(['t1']);
  });
});
