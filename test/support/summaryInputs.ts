// Builds the summarizer's input from entry ids, as the cut plan and the context builder would hand it over.
import type { Cut } from '../../src/core/compaction/cutPlan';
import { droppedEntryIds, pinnedEntryIds } from '../../src/core/context/contextMarkers';
import type { MessageEntry, SessionEntry, UserEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';

export interface SummaryIds {
  summarize: readonly string[];
  prefix?: readonly string[];
  firstKept: string | null;
}

/** The newest request on the path up to the last of `replaced` that the person did not drop: the one the summarized part ends in. */
function requestEndingIn(path: readonly SessionEntry[], replaced: readonly MessageEntry[]): UserEntry | null {
  const ids = new Set(replaced.map((entry) => entry.id));
  const dropped = droppedEntryIds(path);
  let end = -1;
  path.forEach((entry, at) => (end = ids.has(entry.id) ? at : end));
  for (let at = end; at >= 0; at--) {
    const entry = path[at];
    if (entry?.type === 'user' && !entry.synthetic && !dropped.has(entry.id)) return entry;
  }
  return null;
}

/**
 * The entries, the split turn's head, the pins among them, the cut (a split when the first kept entry is not a request)
 * and the request the summarized part ends in.
 */
export function summaryInput(path: readonly SessionEntry[], ids: SummaryIds): { cut: Cut; entries: MessageEntry[]; turnPrefixEntries: MessageEntry[]; pinned: MessageEntry[]; lastRequest: UserEntry | null } {
  const messages = path.filter(isMessageEntry);
  const pick = (wanted: readonly string[]): MessageEntry[] => messages.filter((entry) => wanted.includes(entry.id));
  const entries = pick(ids.summarize);
  const turnPrefixEntries = pick(ids.prefix ?? []);
  const pins = pinnedEntryIds(path);
  const first = messages.find((entry) => entry.id === ids.firstKept);
  const splitsTurn = first !== undefined && !(first.type === 'user' && !first.synthetic);
  const request = splitsTurn ? [...entries, ...turnPrefixEntries].filter((entry) => entry.type === 'user' && !entry.synthetic).at(-1) : undefined;
  return {
    cut: { firstKeptEntryId: ids.firstKept, splitsTurn, carriedRequestId: request?.id ?? null },
    entries,
    turnPrefixEntries,
    pinned: [...entries, ...turnPrefixEntries].filter((entry) => pins.has(entry.id)),
    lastRequest: requestEndingIn(path, [...entries, ...turnPrefixEntries]),
  };
}
