// Says, in the warning of each set-aside line, which entries below it were reattached and to what: told once, on the repair.
import type { BadLine, ParsedLog } from './logParser';
import type { Reattachment } from './sessionTree';
import { clipText, summariseWarnings, WARNINGS_SHOWN } from './warningSummary';

const LISTED = 3;

/** Index of the last bad line above `line` (bad lines are in file order), or -1. */
function lastBadAbove(bad: readonly BadLine[], line: number): number {
  let low = 0;
  let high = bad.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((bad[middle]?.line ?? 0) < line) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

function describe(moved: Reattachment, line: number): string {
  const target = moved.parent ? `entry ${clipText(moved.parent.id, 80)}, the one before it on its branch` : 'nothing (it now starts the history)';
  return `entry ${clipText(moved.entry.id, 80)} (line ${line}) now hangs from ${target}`;
}

/**
 * The parse's warnings, where a set-aside line whose entry was a parent gets a note naming the entries that
 * now hang from the previous entry on their branch. Reattachments with no set-aside line above them (it went
 * to quarantine on an earlier open) add nothing: the repair was reported then. Past the first few warnings the
 * rest are one counted line, so a file with 20,000 damaged lines still reports a screenful.
 */
export function withReattachNotes(parsed: ParsedLog, reattached: readonly Reattachment[], file = 'session'): string[] {
  return summariseWarnings(notedWarnings(parsed, reattached), file);
}

function notedWarnings(parsed: ParsedLog, reattached: readonly Reattachment[]): string[] {
  const warnings = [...parsed.warnings];
  if (reattached.length === 0 || parsed.corrupt.length === 0) return warnings;
  const lineOf = new Map<object, number>();
  parsed.entries.forEach((entry, index) => lineOf.set(entry, parsed.entryLine(index)));
  // Only the warnings shown one by one get notes; each names its first few entries and counts the rest.
  const notes = new Map<number, { shown: string[]; count: number }>();
  for (const moved of reattached) {
    const line = lineOf.get(moved.entry);
    const index = line === undefined ? -1 : lastBadAbove(parsed.corrupt, line);
    if (line === undefined || index < 0 || index >= WARNINGS_SHOWN) continue;
    const note = notes.get(index) ?? { shown: [], count: 0 };
    note.count++;
    if (note.shown.length < LISTED) note.shown.push(describe(moved, line));
    notes.set(index, note);
  }
  for (const [index, note] of notes) {
    const more = note.count > LISTED ? `; and ${note.count - LISTED} more` : '';
    warnings[index] = `${warnings[index] ?? ''}; its entry was a parent, so nothing below it is lost: ${note.shown.join('; ')}${more}`;
  }
  return warnings;
}
