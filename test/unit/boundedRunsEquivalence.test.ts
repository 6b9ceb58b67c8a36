// The one-pass long-run scan finds exactly what /\S{257,}/g found, so every count stays the same as before.
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countBoundedRuns, isRegexSpace, longRuns, MAX_RUN_CHARS } from '../../src/core/tokens/boundedRuns';

const plain = { disallowedSpecial: new Set<string>() };
const exact = (text: string): number => countTokens(text, plain);

/** The regex scan the counter used before (the reference the new scan must equal). */
function regexRuns(text: string): number[] {
  const runs: number[] = [];
  for (const match of text.matchAll(new RegExp(`\\S{${MAX_RUN_CHARS + 1},}`, 'g'))) runs.push(match.index, match.index + match[0].length);
  return runs;
}

/** The counting loop as it was, driven by the regex scan. */
function referenceCount(text: string, count: (text: string) => number): number {
  const runs = regexRuns(text);
  if (runs.length === 0) return count(text);
  let total = 0;
  let from = 0;
  for (let at = 0; at < runs.length; at += 2) {
    const start = runs[at] as number;
    const end = runs[at + 1] as number;
    if (start > from) total += count(text.slice(from, start));
    let piece = start;
    while (piece < end) {
      let next = Math.min(end, piece + MAX_RUN_CHARS);
      const code = text.charCodeAt(next - 1);
      if (next < end && code >= 0xd800 && code <= 0xdbff) next--;
      total += count(text.slice(piece, next));
      piece = next;
    }
    from = end;
  }
  if (from < text.length) total += count(text.slice(from));
  return total;
}

/** Every character JavaScript's \s matches, plus look-alikes that are not spaces (zero-width space, NEL, U+180E). */
const SPACES = [...Array.from({ length: 0x10000 }, (_, code) => code).filter((code) => /\s/.test(String.fromCharCode(code)))];
const NEAR_SPACES = [0x200b, 0x85, 0x180e, 0x2060, 0x1f, 0x7f, 0x21];

/** Text made of runs of various lengths (many near the 256 limit) joined by one or more kinds of space. */
const runText = fc
  .array(
    fc.record({
      length: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 250, max: 270 }), fc.integer({ min: 500, max: 900 })),
      unit: fc.constantFrom('a', 'é', '漢', '😀', 'x1', '\ud83d', '{"k":', String.fromCharCode(0x200b), String.fromCharCode(0x85)),
      gap: fc.array(fc.constantFrom(...SPACES.map((code) => String.fromCharCode(code))), { minLength: 1, maxLength: 3 }),
    }),
    { maxLength: 12 },
  )
  .map((parts) => parts.map((part) => part.unit.repeat(Math.ceil(part.length / part.unit.length)).slice(0, part.length) + part.gap.join('')).join(''));

describe('one-pass long-run scan', () => {
  it('treats-exactly-the-regex-whitespace-as-space', () => {
    for (let code = 0; code < 0x10000; code++) expect(isRegexSpace(code)).toBe(SPACES.includes(code));
    for (const code of NEAR_SPACES) expect(isRegexSpace(code)).toBe(false);
  });

  it('finds-the-same-runs-as-the-regex', () => {
    fc.assert(
      fc.property(fc.oneof(runText, fc.string({ maxLength: 2000 }), fc.string({ unit: 'binary', maxLength: 1500 })), (text) => {
        expect(longRuns(text)).toEqual(regexRuns(text));
      }),
      { numRuns: 400 },
    );
  });

  it('counts-every-text-exactly-as-before', () => {
    fc.assert(
      fc.property(runText, (text) => {
        expect(countBoundedRuns(text, exact)).toBe(referenceCount(text, exact));
      }),
      { numRuns: 150 },
    );
  });

  it('finds-runs-at-the-very-start-and-end', () => {
    const run = 'z'.repeat(MAX_RUN_CHARS + 1);
    expect(longRuns(`${run} mid ${run}`)).toEqual(regexRuns(`${run} mid ${run}`));
    expect(longRuns('z'.repeat(MAX_RUN_CHARS))).toEqual([]);
    expect(longRuns(run)).toEqual([0, MAX_RUN_CHARS + 1]);
  });
});
