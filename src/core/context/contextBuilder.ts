// Builds exactly the messages the model is sent for a path: latest compaction summary, pinned and kept entries, repaired tool pairs.
import type { ChatMessage } from './chatMessage';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { pinnedEntryIds, prunedToolResultIds, summaryMessageText } from './contextMarkers';
import { repairToolPairs, type Candidate, type ContextItem } from './toolPairRepair';

export { SUMMARY_PREFIX, prunePlaceholder, prunedToolResultIds, pinnedEntryIds, summaryMessageText } from './contextMarkers';
export { CANCELLED_RESULT, type ContextItem, type ContextItemKind } from './toolPairRepair';

export interface BuildContextOptions {
  systemPrompt?: string;
  systemRole?: 'system' | 'developer';
}

export interface BuiltContext {
  messages: ChatMessage[];
  /** items[i].message === messages[i]; says where each message came from. */
  items: ContextItem[];
  /** The compaction the context starts from, or null when the whole path is sent. */
  compactionId: string | null;
}

/** How the path splits at its latest compaction: summarized away, kept verbatim, and the compaction itself. */
export interface PathSplit {
  compaction: CompactionEntry | null;
  summarized: SessionEntry[];
  kept: SessionEntry[];
}

export function splitAtLatestCompaction(path: readonly SessionEntry[]): PathSplit {
  let at = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]?.type === 'compaction') {
      at = i;
      break;
    }
  }
  const compaction = at >= 0 ? (path[at] as CompactionEntry) : null;
  if (!compaction) return { compaction: null, summarized: [], kept: [...path] };
  const firstKept = compaction.firstKeptEntryId === null ? -1 : path.findIndex((entry, i) => i < at && entry.id === compaction.firstKeptEntryId);
  const cut = firstKept >= 0 ? firstKept : at;
  return { compaction, summarized: path.slice(0, cut), kept: [...path.slice(cut, at), ...path.slice(at + 1)] };
}

/**
 * Pinned entries the compaction summarized away, as whole tool exchanges: a pinned result brings its call's
 * assistant message, and a pinned assistant message brings its results, so pinning never orphans a pair.
 */
function pinnedGroup(summarized: readonly SessionEntry[], pinned: ReadonlySet<string>): MessageEntry[] {
  const messages = summarized.filter(isMessageEntry);
  const chosen = new Set<string>(messages.filter((entry) => pinned.has(entry.id)).map((entry) => entry.id));
  const callOwner = new Map<string, string>();
  for (const entry of messages) if (entry.type === 'assistant') for (const call of entry.toolCalls) callOwner.set(call.id, entry.id);
  for (const entry of messages) {
    if (entry.type === 'toolResult' && chosen.has(entry.id)) {
      const owner = callOwner.get(entry.toolCallId);
      if (owner) chosen.add(owner);
    }
  }
  const chosenCalls = new Set<string>();
  for (const entry of messages) if (entry.type === 'assistant' && chosen.has(entry.id)) for (const call of entry.toolCalls) chosenCalls.add(call.id);
  for (const entry of messages) if (entry.type === 'toolResult' && chosenCalls.has(entry.toolCallId)) chosen.add(entry.id);
  return messages.filter((entry) => chosen.has(entry.id));
}

/** The exact Chat Completions messages for the path root→leaf (pure: no I/O, same input same output). */
export function buildContext(path: readonly SessionEntry[], options: BuildContextOptions = {}): BuiltContext {
  const items: ContextItem[] = [];
  if (options.systemPrompt !== undefined) {
    items.push({ message: { role: options.systemRole ?? 'system', content: options.systemPrompt }, kind: 'system' });
  }
  const { compaction, summarized, kept } = splitAtLatestCompaction(path);
  if (compaction) {
    items.push({ message: { role: 'user', content: summaryMessageText(compaction) }, kind: 'summary', entryId: compaction.id });
  }
  const sequence: Candidate[] = [
    ...pinnedGroup(summarized, pinnedEntryIds(path)).map((entry): Candidate => ({ entry, kind: 'pinned' })),
    ...kept.filter(isMessageEntry).map((entry): Candidate => ({ entry, kind: 'entry' })),
  ];
  items.push(...repairToolPairs(sequence, prunedToolResultIds(path)));
  return { messages: items.map((item) => item.message), items, compactionId: compaction?.id ?? null };
}
