// Caps a tool output for the context: head and tail stay inline, the middle is named so it can be read back.

export interface CapLimits {
  maxChars: number;
  maxLines: number;
  /** Id the note tells the model to pass to read_stored_output (the tool result's entry id or tool call id). */
  entryId: string;
}

export interface CappedOutput {
  /** What the model sees. */
  content: string;
  /** The whole output, present only when content was shortened (store it as a blob). */
  full?: string;
}

const HEAD_SHARE = 0.6;
/** Room kept for the note itself so content stays within maxChars. */
const NOTE_ROOM = 260;

function takeLines(lines: readonly string[], maxLines: number, maxChars: number): number {
  let count = 0;
  let size = 0;
  while (count < lines.length && count < maxLines) {
    const next = (lines[count] ?? '').length + 1;
    if (size + next > maxChars) break;
    size += next;
    count++;
  }
  return count;
}

function readBackNote(omitted: string, entryId: string, range: string): string {
  return `[... ${omitted} omitted; read them with read_stored_output {"entryId":"${entryId}",${range}} ...]`;
}

/** What a cap left out: a run of whole lines (1-based, inclusive), or a run of characters when lines are too long. */
export type Omission =
  | { kind: 'lines'; startLine: number; endLine: number; lines: number; chars: number }
  | { kind: 'chars'; offset: number; length: number };

/** Keeps ~60% head and ~40% tail by lines and characters, `note` saying what was left out; the input untouched when it fits. */
export function capText(text: string, limits: Omit<CapLimits, 'entryId'>, note: (omission: Omission) => string): CappedOutput {
  const lines = text.split('\n');
  if (text.length <= limits.maxChars && lines.length <= limits.maxLines) return { content: text };
  const charBudget = Math.max(200, limits.maxChars - NOTE_ROOM);
  const headChars = Math.floor(charBudget * HEAD_SHARE);
  const tailChars = charBudget - headChars;
  const lineBudget = Math.max(2, limits.maxLines - 1);
  const headLineBudget = Math.max(1, Math.floor(lineBudget * HEAD_SHARE));
  const head = takeLines(lines, headLineBudget, headChars);
  const reversed = [...lines].reverse();
  const tail = Math.min(takeLines(reversed, lineBudget - headLineBudget, tailChars), lines.length - head - 1);
  if (head === 0 || tail <= 0) {
    // Very long lines: fall back to a character window (read back by offset/length).
    const length = text.length - headChars - tailChars;
    const omission: Omission = { kind: 'chars', offset: headChars, length };
    return { content: `${text.slice(0, headChars)}\n${note(omission)}\n${text.slice(text.length - tailChars)}`, full: text };
  }
  const omittedLines = lines.length - head - tail;
  const headText = lines.slice(0, head).join('\n');
  const tailText = lines.slice(lines.length - tail).join('\n');
  const omittedChars = text.length - headText.length - tailText.length - 2;
  const omission: Omission = { kind: 'lines', startLine: head + 1, endLine: head + omittedLines, lines: omittedLines, chars: omittedChars };
  return { content: `${headText}\n${note(omission)}\n${tailText}`, full: text };
}

/** Caps a tool output; the note names the stored output's entry id and the range to read back. */
export function capToolOutput(text: string, limits: CapLimits): CappedOutput {
  return capText(text, limits, (omission) =>
    omission.kind === 'chars'
      ? readBackNote(`${omission.length} chars`, limits.entryId, `"offset":${omission.offset},"length":${omission.length}`)
      : readBackNote(`${omission.lines} lines / ${omission.chars} chars`, limits.entryId, `"startLine":${omission.startLine},"endLine":${omission.endLine}`),
  );
}
