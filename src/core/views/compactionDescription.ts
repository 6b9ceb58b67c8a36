// What a past compaction covered, in words, so the restore picker and the panel history can tell them apart.
import type { CompactionEntry, SessionEntry } from '../session/entries';
import { OwnedMemo } from '../session/ownedMemo';

const REQUEST_CHARS = 60;

export interface CompactionCoverage {
  /** The person's turns (non-synthetic requests) it summarized. */
  turns: number;
  /** The first request it summarized, shortened; empty when it summarized none. */
  firstRequest: string;
}

/** A request as one line of at most 60 characters. */
export function shortened(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > REQUEST_CHARS ? `${line.slice(0, REQUEST_CHARS - 1)}…` : line;
}

/** Every compaction's coverage on one path, computed in one pass: the panel and the restore picker ask for all of them. */
const coveragesByPath = new OwnedMemo<readonly SessionEntry[], { length: number; coverages: Map<string, CompactionCoverage> }>('compaction coverages');

/**
 * What each compaction on `path` summarized (by compaction id): the messages from the previous compaction's kept
 * part (or the start) up to its own kept part. One pass over the path for all of them (a search per compaction
 * made the panel and the picker quadratic: 400 compactions on 100k entries took half a second per update).
 */
export function compactionCoverages(path: readonly SessionEntry[]): ReadonlyMap<string, CompactionCoverage> {
  // Keyed by the array and its length: a session's path is one array that grows as entries are appended.
  const known = coveragesByPath.get(path);
  if (known?.length === path.length) return known.coverages;
  // Only the kept entries compactions name need a position: no map of every id on the path.
  const firstIndex = new Map<string, number>();
  const named = new Set<string>();
  for (const entry of path) if (entry.type === 'compaction' && entry.firstKeptEntryId !== null) named.add(entry.firstKeptEntryId);
  /** Positions of the person's requests, ascending: a range's requests are found by binary search. */
  const requests: number[] = [];
  path.forEach((entry, index) => {
    if (named.has(entry.id) && !firstIndex.has(entry.id)) firstIndex.set(entry.id, index);
    if (isRequest(entry)) requests.push(index);
  });
  const coverages = new Map<string, CompactionCoverage>();
  let start = 0;
  path.forEach((entry, at) => {
    if (entry.type !== 'compaction') return;
    const keptAt = entry.firstKeptEntryId === null ? -1 : (firstIndex.get(entry.firstKeptEntryId) ?? -1);
    const end = keptAt >= start ? keptAt : at;
    const from = countBelow(requests, start);
    const turns = end > start ? countBelow(requests, end) - from : 0;
    const first = turns > 0 ? path[requests[from] as number] : undefined;
    // A compaction found again later on the path (hostile data) keeps its first description, as a search would.
    if (!coverages.has(entry.id)) coverages.set(entry.id, { turns, firstRequest: first?.type === 'user' ? shortened(first.text) : '' });
    start = keptAt >= 0 ? keptAt : at + 1;
  });
  coveragesByPath.set(path, { length: path.length, coverages });
  return coverages;
}

/** How many of the ascending `positions` are below `value`. */
export function countBelow(positions: readonly number[], value: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((positions[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function isRequest(entry: SessionEntry | undefined): boolean {
  return entry?.type === 'user' && !entry.synthetic;
}

/** What `compaction` summarized on `path`; a compaction not on the path covers nothing that can be shown. */
export function compactionCoverage(path: readonly SessionEntry[], compaction: CompactionEntry): CompactionCoverage {
  return compactionCoverages(path).get(compaction.id) ?? { turns: 0, firstRequest: '' };
}

/** E.g. `3 turns from “fix the parser…”, 98k → 31k tokens, automatic`. */
export function describeCompaction(path: readonly SessionEntry[], compaction: CompactionEntry, formatTokens: (tokens: number) => string): string {
  const { turns, firstRequest } = compactionCoverage(path, compaction);
  const covered = turns === 0 ? 'part of a turn' : `${turns} turn${turns === 1 ? '' : 's'}${firstRequest ? ` from “${firstRequest}”` : ''}`;
  const how = `${compaction.auto ? 'automatic' : 'manual'}${compaction.edited ? ', edited' : ''}`;
  return `${covered}, ${formatTokens(compaction.tokensBefore)} → ${formatTokens(compaction.tokensAfter)} tokens, ${how}`;
}
