// Incremental counting (countPath views + countContext memos) must equal a fresh count of the same path after any sequence of turns.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countContext } from '../../src/core/budget/contextCounts';
import { extendContext } from '../../src/core/budget/contextMemo';
import { carriedRequest } from '../../src/core/context/contextBuilder';
import type { PathCountMap } from '../../src/core/tokens/pathCounts';
import type { SessionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';
import { CountCache } from '../../src/core/tokens/countCache';
import { countPath } from '../../src/core/tokens/entryTokens';
import { countEntry } from '../support/countOne';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { PathBuilder } from '../support/sessionPathBuilder';
import { SessionTree } from '../../src/core/session/sessionTree';

type Op =
  | { kind: 'turn'; calls: number; answer: number; report: number; model: 'same' | 'other' | 'none' }
  | { kind: 'lateResult'; pick: number }
  | { kind: 'reuseCall'; pick: number }
  | { kind: 'prune'; pick: number }
  | { kind: 'pin'; pick: number }
  | { kind: 'drop'; pick: number }
  | { kind: 'compact'; pick: number }
  | { kind: 'branch'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), calls: fc.integer({ min: 0, max: 2 }), answer: fc.integer({ min: 0, max: 2 }), report: fc.integer({ min: 0, max: 3 }), model: fc.constantFrom('same' as const, 'other' as const, 'none' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lateResult' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reuseCall' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prune' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pin' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('branch' as const), pick: fc.nat() }) },
);

function pick<T>(list: readonly T[], at: number): T | undefined {
  return list.length > 0 ? list[at % list.length] : undefined;
}

/** Applies one operation to the builder; `open` holds call ids without a result yet. */
function apply(builder: PathBuilder, step: Op, n: number, open: string[]): void {
  const path = builder.path();
  const messages = path.filter(isMessageEntry);
  switch (step.kind) {
    case 'turn': {
      builder.user(`u${n}`);
      const calls = Array.from({ length: step.calls }, (_, i) => `c${n}-${i}`);
      const model = step.model === 'none' ? {} : { model: step.model === 'same' ? 'claude-opus-4-5' : 'gpt-4o' };
      builder.assistant(`a${n}`, calls, `reply ${n}`, step.report > 0 ? { usage: { promptTokens: 100 * n + step.report, completionTokens: 5 }, ...model } : model);
      calls.forEach((call, i) => (i < step.answer ? builder.tool(`t${n}-${i}`, call, `output ${n} ${'x '.repeat(n)}`) : open.push(call)));
      return;
    }
    case 'lateResult': {
      const call = open.splice(step.pick % Math.max(1, open.length), 1)[0];
      if (call) builder.tool(`late${n}`, call, `late output ${n}`);
      return;
    }
    case 'reuseCall': {
      const old = pick(messages.flatMap((entry) => (entry.type === 'assistant' ? entry.toolCalls.map((call) => call.id) : [])), step.pick);
      if (old) builder.assistant(`r${n}`, [old]);
      return;
    }
    case 'prune': {
      const target = pick(messages.filter((entry) => entry.type === 'toolResult'), step.pick);
      if (target) builder.prune(`p${n}`, [target.id]);
      return;
    }
    case 'pin': {
      const target = pick(messages, step.pick);
      if (target) builder.pin(`pin${n}`, target.id, step.pick % 3 !== 0);
      return;
    }
    case 'drop': {
      const target = pick(messages, step.pick);
      if (target) builder.drop(`d${n}`, [target.id], step.pick % 3 !== 0);
      return;
    }
    case 'compact':
      builder.compaction(`k${n}`, pick(messages, step.pick)?.id ?? null);
      return;
    case 'branch':
      builder.at(pick(path, step.pick)?.id ?? null);
  }
}

describe('incremental counting', () => {
  it('gives the same counts, breakdown and anchor as a fresh count after every step', async () => {
    const counter = await TokenCounter.create('claude-opus-4-5');
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => {
        const builder = new PathBuilder();
        const cache = new CountCache();
        // The same steps on paths a session tree hands out: a store takes the first such path as its spine (records
        // made when asked for); a new cache every few steps takes spines of every length, then extends and branches them.
        const tree = new SessionTree();
        let spineCache = new CountCache();
        const open: string[] = [];
        for (const [n, step] of ops.entries()) {
          apply(builder, step, n, open);
          const path: SessionEntry[] = builder.path();
          const counts = countPath(path, counter, cache);
          const fresh = new Map(path.filter(isMessageEntry).map((entry) => [entry.id, countEntry(entry, counter, new CountCache())]));
          expect(new Map(counts.full)).toEqual(fresh);
          const options = { systemPrompt: 'You are terse.', tools: [] };
          const incremental = countContext(path, counts, counter, options);
          const rebuilt = countContext(path, { full: new Map(counts.full), pruned: new Map(counts.pruned) }, counter, options);
          expect(incremental).toEqual(rebuilt);
          for (const entry of builder.entries.slice(tree.entries.length)) tree.add(entry);
          if (n % 4 === 0) spineCache = new CountCache();
          const treePath = tree.pathTo(builder.leaf);
          expect(treePath.map((entry) => entry.id)).toEqual(path.map((entry) => entry.id));
          const treeCounts = countPath(treePath, counter, spineCache);
          expect(new Map(treeCounts.full)).toEqual(fresh);
          expect(treeCounts.full.size).toBe(fresh.size);
          expect(countContext(treePath, treeCounts, counter, options)).toEqual(rebuilt);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('counts a summary sent with the brought-back note (a drop undone after its compaction) as sent, on every later turn', async () => {
    const counter = await TokenCounter.create('claude-opus-4-5');
    const builder = new PathBuilder();
    const cache = new CountCache();
    builder.user('u0');
    builder.assistant('a0', [], 'reply 0');
    builder.drop('d1', ['u0'], true);
    builder.compaction('k2', 'a0');
    const atCompaction = builder.path();
    const before = countContext(atCompaction, countPath(atCompaction, counter, cache), counter);
    builder.drop('d3', ['u0'], false);
    for (const step of ['undone', 'next turn']) {
      if (step === 'next turn') builder.user('u4');
      const path = builder.path();
      const counts = countPath(path, counter, cache);
      const rebuilt = countContext(path, { full: new Map(counts.full), pruned: new Map(counts.pruned) }, counter);
      expect(countContext(path, counts, counter), step).toEqual(rebuilt);
      expect(rebuilt.breakdown.summary, step).toBeGreaterThan(before.breakdown.summary);
    }
  });

  it('resumes from the memo at a pin, drop or compaction at the leaf instead of rebuilding the context', async () => {
    const counter = await TokenCounter.create('claude-opus-4-5');
    for (const marker of ['pin', 'drop', 'compaction'] as const) {
      const builder = new PathBuilder();
      for (let n = 0; n < 6; n++) {
        builder.user(`u${n}`);
        builder.assistant(`a${n}`, [`c${n}`]);
        builder.tool(`t${n}`, `c${n}`);
      }
      if (marker === 'pin') builder.pin('m', 'a1');
      else if (marker === 'drop') builder.drop('m', ['u1', 'a1', 't1']);
      else builder.compaction('m', 'u4');
      const cache = new CountCache();
      const atMarker = builder.path();
      countContext(atMarker, countPath(atMarker, counter, cache), counter);
      builder.user('next');
      const path = builder.path();
      const counts = countPath(path, counter, cache);
      const view = counts.full as PathCountMap;
      const isReport = (): boolean => false;
      // The turn after the marker extends what was counted at the marker (this walk stopped at the marker and rebuilt).
      expect(extendContext(view, counts, counter, () => undefined, isReport, carriedRequest(path)?.id ?? null), marker).toBeDefined();
      expect(countContext(path, counts, counter)).toEqual(countContext(path, { full: new Map(counts.full), pruned: new Map(counts.pruned) }, counter));
    }
  });

  it('ignores usage reported by a model of another tokenizer when anchoring', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const builder = new PathBuilder();
    builder.user('u1');
    builder.assistant('a1', [], 'hi', { usage: { promptTokens: 5000, completionTokens: 5 }, model: 'claude-opus-4-5' });
    builder.user('u2');
    const path = builder.path();
    expect(countContext(path, countPath(path, counter, new CountCache()), counter).lastReport).toBeNull();
    builder.assistant('a2', [], 'ok', { usage: { promptTokens: 6000, completionTokens: 5 }, model: 'gpt-4o-mini' });
    builder.user('u3');
    const next = builder.path();
    expect(countContext(next, countPath(next, counter, new CountCache()), counter).lastReport?.promptTokens).toBe(6000);
  });

  it('counts an arbitrary entry list (not a parent chain) without reusing another path', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const builder = new PathBuilder();
    builder.user('u1', 'one two three');
    builder.assistant('a1', ['c1']);
    builder.tool('t1', 'c1', 'output');
    const cache = new CountCache();
    const whole = countPath(builder.path(), counter, cache);
    const subset = countPath([builder.entries[2]!, builder.entries[0]!], counter, cache);
    expect([...subset.full.keys()]).toEqual(['t1', 'u1']);
    expect(subset.full.size).toBe(2);
    expect(subset.full.get('a1')).toBeUndefined();
    expect(whole.full.size).toBe(3);
  });
});
