// The one-pass compaction history / restore picker descriptions and the dropped-parts list equal the per-item scans they replace.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeDropped, droppedParts } from '../../src/core/context/contextDrops';
import { droppedEntryIds } from '../../src/core/context/contextMarkers';
import type { CompactionEntry, SessionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';
import { compactionCoverage, compactionCoverages, describeCompaction, shortened } from '../../src/core/views/compactionDescription';
import { PathBuilder } from '../support/sessionPathBuilder';

/** The coverage as it was computed before: a search of the path per compaction. */
function referenceCoverage(path: readonly SessionEntry[], compaction: CompactionEntry): { turns: number; firstRequest: string } {
  const at = path.findIndex((entry) => entry.id === compaction.id);
  if (at < 0) return { turns: 0, firstRequest: '' };
  let start = 0;
  for (let index = at - 1; index >= 0; index--) {
    const entry = path[index];
    if (entry?.type !== 'compaction') continue;
    const kept = entry.firstKeptEntryId === null ? -1 : path.findIndex((candidate) => candidate.id === entry.firstKeptEntryId);
    start = kept >= 0 ? kept : index + 1;
    break;
  }
  const keptAt = compaction.firstKeptEntryId === null ? -1 : path.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  const end = keptAt >= start ? keptAt : at;
  const requests = path.slice(start, end).filter((entry) => entry.type === 'user' && !entry.synthetic);
  const first = requests[0];
  return { turns: requests.length, firstRequest: first?.type === 'user' ? shortened(first.text) : '' };
}

/** The dropped parts as they were listed before: describeDropped (a filter of the whole path) per drop. */
function referenceDroppedParts(path: readonly SessionEntry[], end: number): string[] {
  const dropped = droppedEntryIds(path);
  const index = new Map(path.map((entry, at) => [entry.id, at] as const));
  const parts: string[] = [];
  for (const entry of path) {
    if (entry.type !== 'drop' || !entry.dropped) continue;
    const still = entry.entryIds.filter((id) => dropped.has(id) && (index.get(id) ?? Number.POSITIVE_INFINITY) <= end);
    if (still.length > 0) parts.push(describeDropped(path, still));
  }
  return parts;
}

type Op = { kind: 'turn'; calls: number; synthetic: boolean } | { kind: 'compact' | 'drop' | 'undrop' | 'branch'; pick: number; span: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), calls: fc.integer({ min: 0, max: 2 }), synthetic: fc.boolean() }) },
  ...(['compact', 'drop', 'undrop', 'branch'] as const).map((kind) => ({ weight: 1, arbitrary: fc.record({ kind: fc.constant(kind), pick: fc.nat(), span: fc.integer({ min: 0, max: 4 }) }) })),
);

function build(ops: readonly Op[]): SessionEntry[] {
  const builder = new PathBuilder();
  for (const [n, step] of ops.entries()) {
    const path = builder.path();
    const messages = path.filter(isMessageEntry);
    const chosen = messages.length === 0 ? [] : Array.from({ length: 'span' in step ? step.span : 0 }, (_, i) => messages[(('pick' in step ? step.pick : 0) + i) % messages.length]!.id);
    switch (step.kind) {
      case 'turn': {
        const user = builder.user(`u${n}`, `request number ${n} ${'and more words '.repeat(n % 7)}`);
        if (step.synthetic) (user as { synthetic?: boolean }).synthetic = true;
        const calls = Array.from({ length: step.calls }, (_, i) => `c${n}-${i}`);
        builder.assistant(`a${n}`, calls);
        for (const call of calls) builder.tool(`t${call}`, call);
        break;
      }
      case 'compact':
        // Kept parts at a message, at nothing, or at an id that is not on the path.
        builder.compaction(`k${n}`, step.span === 0 ? null : step.span === 4 ? 'missing' : (chosen[0] ?? null));
        break;
      case 'drop':
      case 'undrop':
        builder.drop(`d${n}`, step.span === 4 ? [...chosen, 'missing'] : chosen, step.kind === 'drop');
        break;
      case 'branch':
        builder.at(path.length > 0 ? path[step.pick % path.length]!.id : null);
        break;
    }
  }
  return builder.path();
}

describe('history scans in one pass', () => {
  it('describe every compaction as the per-compaction search did', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 70 }), (ops) => {
        const path = build(ops);
        for (const entry of path) {
          if (entry.type !== 'compaction') continue;
          expect(compactionCoverage(path, entry)).toEqual(referenceCoverage(path, entry));
          expect(compactionCoverages(path).get(entry.id)).toEqual(referenceCoverage(path, entry));
          expect(describeCompaction(path, entry, String)).toContain(entry.auto ? 'automatic' : 'manual');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('list what was dropped as the per-drop filter did, at every cut; a bounded list keeps the newest and counts the rest', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 70 }), fc.nat(), fc.integer({ min: 1, max: 4 }), (ops, cut, most) => {
        const path = build(ops);
        const end = path.length === 0 ? 0 : cut % (path.length + 1);
        const reference = referenceDroppedParts(path, end);
        const whole = droppedParts(path, end);
        expect([...whole]).toEqual(reference);
        expect(whole.omitted).toBe(0);
        const bounded = droppedParts(path, end, { maxItems: most, maxChars: 1_000_000 });
        expect([...bounded]).toEqual(reference.slice(-most));
        expect(bounded.omitted).toBe(Math.max(0, reference.length - most));
      }),
      { numRuns: 300 },
    );
  });

  it('gives nothing for a compaction that is not on the path', () => {
    const builder = new PathBuilder();
    builder.user('u1');
    const other = builder.compaction('k1', 'u1');
    builder.at(null).user('u2');
    expect(compactionCoverage(builder.path(), other)).toEqual({ turns: 0, firstRequest: '' });
  });
});
