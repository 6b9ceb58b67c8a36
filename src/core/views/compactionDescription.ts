// What a past compaction covered, in words, so the restore picker and the panel history can tell them apart.
import type { CompactionEntry, SessionEntry } from '../session/entries';

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

/**
 * What `compaction` summarized on `path`: the messages from the previous compaction's kept part (or the
 * start) up to its own kept part. A compaction not on the path covers nothing that can be shown.
 */
export function compactionCoverage(path: readonly SessionEntry[], compaction: CompactionEntry): CompactionCoverage {
  const at = path.findIndex((entry) => entry.id === compaction.id);
  if (at < 0) return { turns: 0, firstRequest: '' };
  let start = 0;
  for (let index = at - 1; index >= 0; index--) {
    const entry = path[index];
    if (entry?.type !== 'compaction') continue;
    const kept = entry.firstKeptEntryId === null ? -1 : path.findIndex((candidate) => candidate.id === entry.firstKeptEntryId);
    start = kept >= 0 ? kept : index + 1;
    break;
  }
  const keptAt = compaction.firstKeptEntryId === null ? -1 : path.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  const end = keptAt >= start ? keptAt : at;
  const requests = path.slice(start, end).filter((entry) => entry.type === 'user' && !entry.synthetic);
  const first = requests[0];
  return { turns: requests.length, firstRequest: first?.type === 'user' ? shortened(first.text) : '' };
}

/** E.g. `3 turns from “fix the parser…”, 98k → 31k tokens, automatic`. */
export function describeCompaction(path: readonly SessionEntry[], compaction: CompactionEntry, formatTokens: (tokens: number) => string): string {
  const { turns, firstRequest } = compactionCoverage(path, compaction);
  const covered = turns === 0 ? 'part of a turn' : `${turns} turn${turns === 1 ? '' : 's'}${firstRequest ? ` from “${firstRequest}”` : ''}`;
  const how = `${compaction.auto ? 'automatic' : 'manual'}${compaction.edited ? ', edited' : ''}`;
  return `${covered}, ${formatTokens(compaction.tokensBefore)} → ${formatTokens(compaction.tokensAfter)} tokens, ${how}`;
}
