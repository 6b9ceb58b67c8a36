// The LCS line diff behind "Changes from the previous summary": minimal, order-preserving, and reversible.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DIFF_CELLS, diffLines, diffStats } from '../../src/shared/lineDiff';
import type { DiffLine } from '../../src/shared/lineDiff';

const side = (lines: DiffLine[], drop: 'added' | 'removed'): string[] => lines.filter((line) => line.kind !== drop).map((line) => line.text);

/** Reference LCS length by plain recursion-free DP, to check the diff keeps as many lines as possible. */
function lcsLength(a: string[], b: string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const lineA of a) {
    const current = [0];
    b.forEach((lineB, j) => current.push(lineA === lineB ? previous[j]! + 1 : Math.max(previous[j + 1]!, current[j]!)));
    previous = current;
  }
  return previous[b.length]!;
}

describe('diffLines', () => {
  it('marks one changed line as removed then added, keeping the rest', () => {
    expect(diffLines('a\nb\nc', 'a\nB\nc')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
    ]);
  });

  it('handles empty sides and CRLF', () => {
    expect(diffLines('', '')).toEqual([]);
    expect(diffLines('', 'x\ny')).toEqual([{ kind: 'added', text: 'x' }, { kind: 'added', text: 'y' }]);
    expect(diffLines('x', '')).toEqual([{ kind: 'removed', text: 'x' }]);
    expect(diffLines('a\r\nb', 'a\nb')).toEqual([{ kind: 'same', text: 'a' }, { kind: 'same', text: 'b' }]);
  });

  it('finds moved-around sections with a longest common subsequence', () => {
    const lines = diffLines('## Goal\nx\n## Progress\ny\nz', '## Goal\n## Progress\ny\nnew\nz');
    expect(diffStats(lines)).toEqual({ added: 1, removed: 1 });
  });

  it('always reproduces both texts and keeps a longest common subsequence', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '', '## h'), { maxLength: 25 }).map((lines) => lines.join('\n'));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const lines = diffLines(before, after);
        const a = before === '' ? [] : before.split('\n');
        const b = after === '' ? [] : after.split('\n');
        expect(side(lines, 'added')).toEqual(a);
        expect(side(lines, 'removed')).toEqual(b);
        expect(lines.filter((line) => line.kind === 'same').length).toBe(lcsLength(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('falls back to removed-then-added for huge inputs, still reproducing both texts', () => {
    const size = Math.ceil(Math.sqrt(MAX_DIFF_CELLS)) + 10;
    const before = Array.from({ length: size }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: size }, (_, i) => `new ${i}`).join('\n');
    const lines = diffLines(`head\n${before}\ntail`, `head\n${after}\ntail`);
    expect(lines[0]).toEqual({ kind: 'same', text: 'head' });
    expect(lines.at(-1)).toEqual({ kind: 'same', text: 'tail' });
    expect(diffStats(lines)).toEqual({ added: size, removed: size });
  });
});
