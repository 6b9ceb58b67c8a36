// Builds exactly the messages the model is sent for a path: latest compaction summary, pinned and kept entries (less dropped ones), repaired tool pairs.
import type { ChatMessage } from './chatMessage';
import type { CompactionEntry, MessageEntry, SessionEntry, UserEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { droppedEntryIds, pinnedEntryIds, prunedToolResultIds, summaryMessageText } from './contextMarkers';
import { repairToolPairs, type Candidate, type ContextItem } from './toolPairRepair';

export { SUMMARY_PREFIX, droppedEntryIds, prunePlaceholder, prunedToolResultIds, pinnedEntryIds, summaryMessageText } from './contextMarkers';
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
 * Results are paired with the nearest earlier assistant message that made a call with their id, by
 * position: servers that number calls per response (llama.cpp, Ollama: "call_0" every time) reuse ids.
 */
function pinnedGroup(summarized: readonly SessionEntry[], pinned: ReadonlySet<string>): MessageEntry[] {
  const messages = summarized.filter(isMessageEntry);
  const chosen = new Set<string>(messages.filter((entry) => pinned.has(entry.id)).map((entry) => entry.id));
  if (chosen.size === 0) return [];
  const ownerOf = new Map<string, string>();
  const resultsOf = new Map<string, string[]>();
  const latestCaller = new Map<string, string>();
  for (const entry of messages) {
    if (entry.type === 'assistant') for (const call of entry.toolCalls) latestCaller.set(call.id, entry.id);
    if (entry.type !== 'toolResult') continue;
    const owner = latestCaller.get(entry.toolCallId);
    if (owner === undefined) continue;
    ownerOf.set(entry.id, owner);
    const results = resultsOf.get(owner) ?? [];
    results.push(entry.id);
    resultsOf.set(owner, results);
  }
  for (const id of [...chosen]) {
    const owner = ownerOf.get(id);
    if (owner !== undefined) chosen.add(owner);
  }
  for (const id of [...chosen]) for (const result of resultsOf.get(id) ?? []) chosen.add(result);
  return messages.filter((entry) => chosen.has(entry.id));
}

/**
 * The user's newest request while its turn is still open (no answer without tool calls since): the one
 * every call of that turn must carry. Undefined between turns, and for automatic messages.
 */
export function openRequest(path: readonly SessionEntry[]): UserEntry | undefined {
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index];
    if (entry?.type === 'assistant' && entry.toolCalls.length === 0) return undefined;
    if (entry?.type === 'user' && !entry.synthetic) return entry;
  }
  return undefined;
}

/** The latest compaction on the path up to and including an entry, with its index: one answer per entry (its prefix is fixed). */
const latestByEntry = new WeakMap<SessionEntry, { compaction: CompactionEntry; index: number } | null>();
/** What each compaction carries (fixed by the entries before it). */
const carriedByCompaction = new WeakMap<CompactionEntry, UserEntry | null>();

/** The latest compaction on `path`; walks back only over entries not seen before, so it costs O(1) per appended entry. */
function latestCompactionOn(path: readonly SessionEntry[]): { compaction: CompactionEntry; index: number } | null {
  let from = path.length - 1;
  while (from >= 0 && !latestByEntry.has(path[from] as SessionEntry)) from--;
  let latest = from >= 0 ? (latestByEntry.get(path[from] as SessionEntry) ?? null) : null;
  // A cached answer holds only when it is on this path at the same place (the entry's prefix is its own).
  if (latest && path[latest.index] !== latest.compaction) {
    latest = null;
    from = -1;
  }
  for (let index = from + 1; index < path.length; index++) {
    const entry = path[index] as SessionEntry;
    if (entry.type === 'compaction') latest = { compaction: entry, index };
    latestByEntry.set(entry, latest);
  }
  return latest;
}

/**
 * The request of the turn the latest compaction cut into (its first kept entry is not the person's
 * message): the message buildContext carries verbatim after the summary for as long as that compaction is
 * the latest, so the model always sees what it was asked in that turn, and the summary's appendix only
 * names it (sent once). Undefined when the cut fell at a turn start or nothing was compacted.
 */
export function carriedRequest(path: readonly SessionEntry[]): UserEntry | undefined {
  const latest = latestCompactionOn(path);
  if (!latest) return undefined;
  const known = carriedByCompaction.get(latest.compaction);
  if (known !== undefined) return known ?? undefined;
  const carried = requestCutInto(path, latest.index, latest.compaction.firstKeptEntryId);
  carriedByCompaction.set(latest.compaction, carried ?? null);
  return carried;
}

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
  const pinnedEntries = pinnedGroup(summarized, pinnedEntryIds(path));
  // A compaction inside a turn summarizes the turn's request with its first steps; the model must still
  // see what it was asked, verbatim, in every call until the turn ends, however often the turn compacts.
  const request = carriedRequest(path);
  const carried = request && !pinnedEntries.includes(request) ? [request] : [];
  // What the person dropped stays out, pinned or not: drops are whole tool exchanges, so no call loses its result.
  const dropped = droppedEntryIds(path);
  const sent = (entry: MessageEntry): boolean => !dropped.has(entry.id);
  const sequence: Candidate[] = [
    ...pinnedEntries.filter(sent).map((entry): Candidate => ({ entry, kind: 'pinned' })),
    ...carried.filter(sent).map((entry): Candidate => ({ entry, kind: 'pinned' })),
    ...kept.filter(isMessageEntry).filter(sent).map((entry): Candidate => ({ entry, kind: 'entry' })),
  ];
  // One by one: a spread of a long session's messages would overflow the call stack (about 125k arguments).
  for (const item of repairToolPairs(sequence, prunedToolResultIds(path))) items.push(item);
  return { messages: items.map((item) => item.message), items, compactionId: compaction?.id ?? null };
}
