// Splits a long text into slices at boundaries where BPE pre-tokenization would split anyway.

/** Slice length in UTF-16 units; counting ~64k chars takes a few milliseconds. */
export const SLICE_CHARS = 64 * 1024;

/** How far back from the target end to look for a clean boundary before cutting hard. */
const SEARCH_WINDOW = 4096;

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 11 || code === 12;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * True when position p is a boundary no pre-token crosses: just after a newline followed by a
 * non-space, or just before a single space that sits between two non-spaces (" word" starts a pre-token).
 */
function isCleanBoundary(text: string, p: number): boolean {
  const before = text.charCodeAt(p - 1);
  const at = text.charCodeAt(p);
  if (before === 10 && !isSpace(at)) return true;
  return at === 32 && !isSpace(before) && p + 1 < text.length && !isSpace(text.charCodeAt(p + 1));
}

function findBoundary(text: string, start: number, target: number): number {
  const floor = Math.max(start + 1, target - SEARCH_WINDOW);
  for (let p = target; p > floor; p--) {
    if (isCleanBoundary(text, p)) return p;
  }
  // No whitespace nearby (minified code, base64): cut hard, but never inside a surrogate pair.
  return isHighSurrogate(text.charCodeAt(target - 1)) ? target - 1 : target;
}

/**
 * Slices of at most `sliceChars` characters that concatenate back to `text`.
 * Counting slices separately differs from counting the whole by at most about one token per
 * boundary (0 at clean boundaries, which is almost always the case in source code and logs).
 */
export function textSlices(text: string, sliceChars: number = SLICE_CHARS): string[] {
  const slices: string[] = [];
  let start = 0;
  while (text.length - start > sliceChars) {
    const end = findBoundary(text, start, start + sliceChars);
    slices.push(text.slice(start, end));
    start = end;
  }
  slices.push(text.slice(start));
  return slices;
}
