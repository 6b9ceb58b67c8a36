// Builds the summarizer's input from entry ids, as the cut plan and the context builder would hand it over.
import type { Cut } from '../../src/core/compaction/cutPlan';
import { pinnedEntryIds } from '../../src/core/context/contextMarkers';
import type { MessageEntry, SessionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';

export interface SummaryIds {
  summarize: readonly string[];
  prefix?: readonly string[];
  firstKept: string | null;
}

/** The entries, the split turn's head, the pins among them and the cut (a split when the first kept entry is not a request). */
export function summaryInput(path: readonly SessionEntry[], ids: SummaryIds): { cut: Cut; entries: MessageEntry[]; turnPrefixEntries: MessageEntry[]; pinned: MessageEntry[] } {
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
  };
}
