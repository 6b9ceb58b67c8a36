// An entry's title reads only as far as it needs, and says exactly what the whole-text whitespace collapse said.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageEntry } from '../../src/core/session/entries';
import { entryTitle } from '../../src/core/session/entryTitle';

/** The title as it was: the whole text's whitespace runs made one space, trimmed, then shortened. */
function referenceLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

const result = (content: string): MessageEntry => ({ type: 'toolResult', id: `t${content.length}`, parentId: null, timestamp: 't', toolCallId: 'c', toolName: 'run', isError: false, content });

describe('entryTitle', () => {
  it('equals the whole-text collapse on any mix of whitespace, text and length', () => {
    const piece = fc.constantFrom(' ', '\n', '\t', '\u00a0', '\u2028', '\ufeff', 'a', 'bc', 'é', '😀', 'word ', '  x  ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 120 }), (pieces) => {
        const text = pieces.join('');
        expect(entryTitle(result(text))).toBe(`run: ${referenceLine(text) || '(no output)'}`);
        expect(entryTitle({ type: 'user', id: 'u', parentId: null, timestamp: 't', text })).toBe(`You: ${referenceLine(text) || '(empty)'}`);
      }),
      { numRuns: 400 },
    );
  });

  it('names a long output by its start, with leading whitespace skipped', () => {
    const output = `\n\n   ${'line of output\n'.repeat(100_000)}`;
    expect(entryTitle(result(output))).toBe(`run: ${referenceLine(output)}`);
    expect(entryTitle(result(' \n\t '))).toBe('run: (no output)');
  });
});
