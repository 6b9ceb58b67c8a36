// Keeps BPE worst-case linear: a run without whitespace is counted in bounded pieces, since BPE merging is quadratic in a pre-token's length.

/**
 * Longest whitespace-free run counted in one piece. BPE on one pre-token costs about its length squared
 * (64 KB of "a" took 4 s, 8k CJK characters 0.7 s); 256-character pieces take microseconds. Real text
 * rarely has such runs (minified code, base64, pasted binary), and each cut costs at most a token or two.
 */
export const MAX_RUN_CHARS = 256;

const LONG_RUN = new RegExp(`\\S{${MAX_RUN_CHARS + 1},}`, 'g');

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Counts `text` with `count`, cutting every whitespace-free run longer than MAX_RUN_CHARS into pieces. */
export function countBoundedRuns(text: string, count: (text: string) => number): number {
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return count(text);
  LONG_RUN.lastIndex = 0;
  let total = 0;
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const start = match.index;
    if (start > from) total += count(text.slice(from, start));
    const end = start + match[0].length;
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
