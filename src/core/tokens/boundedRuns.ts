// Keeps BPE worst-case linear: a run without whitespace is counted in bounded pieces, since BPE merging is quadratic in a pre-token's length.

/**
 * Longest whitespace-free run counted in one piece. BPE on one pre-token costs about its length squared
 * (64 KB of "a" took 4 s, 8k CJK characters 0.7 s); 256-character pieces take microseconds. Real text
 * rarely has such runs (minified code, base64, pasted binary), and each cut costs at most a token or two.
 */
export const MAX_RUN_CHARS = 256;

/** Exactly the characters JavaScript's `\s` matches (WhiteSpace and LineTerminator of the spec, Unicode Zs). */
export function isRegexSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The [start, end) of every whitespace-free run longer than MAX_RUN_CHARS, in order: the matches `/\S{257,}/g`
 * finds. That regex costs up to a run's length at every position inside a run (0.6× of tokenizing the text on
 * real sessions). Here, as in Boyer–Moore–Horspool, a window of MAX_RUN_CHARS + 1 characters is read from its
 * end backwards: the first space found there moves the window past it, so ordinary prose costs about one word's
 * characters per 250 (a few percent of one read of the text), and a long run is read once.
 */
export function longRuns(text: string): number[] {
  const runs: number[] = [];
  const length = text.length;
  // Invariant: `start` is 0 or follows a space, so a run found starting there is a whole run.
  let start = 0;
  while (start + MAX_RUN_CHARS < length) {
    let back = start + MAX_RUN_CHARS;
    while (back >= start && !isSpaceAt(text, back)) back--;
    if (back >= start) {
      // No run of MAX_RUN_CHARS + 1 can start at or before this space.
      start = back + 1;
      continue;
    }
    let end = start + MAX_RUN_CHARS + 1;
    while (end < length && !isSpaceAt(text, end)) end++;
    runs.push(start, end);
    start = end + 1;
  }
  return runs;
}

function isSpaceAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  // Printable ASCII is never a space: the common case costs one comparison pair.
  return code > 32 && code < 127 ? false : isRegexSpace(code);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Counts `text` with `count`, cutting every whitespace-free run longer than MAX_RUN_CHARS into pieces. */
export function countBoundedRuns(text: string, count: (text: string) => number): number {
  const runs = longRuns(text);
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
      // Never split a surrogate pair: both halves would count as unknown bytes.
      if (next < end && isHighSurrogate(text.charCodeAt(next - 1))) next--;
      total += count(text.slice(piece, next));
      piece = next;
    }
    from = end;
  }
  if (from < text.length) total += count(text.slice(from));
  return total;
}
