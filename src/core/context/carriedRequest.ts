// The request a compaction carries verbatim after its summary: the one its plan recorded, or for older logs the one its cut fell into.
import type { CompactionEntry, SessionEntry, UserEntry } from '../session/entries';
import { pathMarkers, type PlacedCompaction } from './pathMarkers';

/** What each compaction carries (fixed by the entries before it). */
const carriedByCompaction = new WeakMap<CompactionEntry, UserEntry | null>();

/**
 * The request the latest compaction carries verbatim after its summary, for as long as it is the latest, so
 * the model always sees what it was asked in the turn the cut fell into (the summary's appendix only names it:
 * sent once). The compaction's plan decided it and the entry records it (`carriedRequestId`); only logs written
 * before that field existed derive it from the cut. Undefined when the cut fell at a turn start.
 */
export function carriedRequest(path: readonly SessionEntry[]): UserEntry | undefined {
  return carriedBy(path, pathMarkers(path).compaction);
}

/** The request the compaction `latest` carries on `path` (remembered per compaction), or undefined. */
export function carriedBy(path: readonly SessionEntry[], latest: PlacedCompaction | null): UserEntry | undefined {
  if (!latest) return undefined;
  const known = carriedByCompaction.get(latest.entry);
  if (known !== undefined) return known ?? undefined;
  const recorded = latest.entry.carriedRequestId;
  const carried = recorded === undefined ? requestCutInto(path, latest.index, latest.entry.firstKeptEntryId) : recorded === null ? undefined : requestBefore(path, latest.index, latest.entry.firstKeptEntryId, recorded);
  carriedByCompaction.set(latest.entry, carried ?? null);
  return carried;
}

/**
 * The person's request `id` on the path before the compaction at `at` and before its cut (a request kept verbatim is
 * sent as kept, not carried); a hand-edited id naming anything else carries nothing.
 */
function requestBefore(path: readonly SessionEntry[], at: number, firstKeptEntryId: string | null, id: string): UserEntry | undefined {
  let kept = firstKeptEntryId !== null;
  for (let index = at - 1; index >= 0; index--) {
    const entry = path[index];
    if (kept) {
      if (entry?.id === firstKeptEntryId) kept = false;
      if (entry?.id === id) return undefined;
      continue;
    }
    if (entry?.id !== id) continue;
    return entry.type === 'user' && !entry.synthetic ? entry : undefined;
  }
  return undefined;
}

/** For compactions recorded without `carriedRequestId`: the newest request before a first kept entry that is not one. */
function requestCutInto(path: readonly SessionEntry[], at: number, firstKeptEntryId: string | null): UserEntry | undefined {
  if (firstKeptEntryId === null) return undefined;
  let firstKept = -1;
  for (let index = at - 1; index >= 0; index--) {
    if (path[index]?.id === firstKeptEntryId) {
      firstKept = index;
      break;
    }
  }
  const first = path[firstKept];
  if (!first || (first.type === 'user' && !first.synthetic)) return undefined;
  for (let index = firstKept - 1; index >= 0; index--) {
    const entry = path[index];
    if (entry?.type === 'user' && !entry.synthetic) return entry;
  }
  return undefined;
}
