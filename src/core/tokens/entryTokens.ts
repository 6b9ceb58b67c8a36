// Renders session entries as the chat messages they become, and counts them once each through the cache.
import type { ChatMessage } from '../context/chatMessage';
import type { CompactionEntry, MessageEntry, SessionEntry, ToolResultEntry } from '../session/entries';
import { prunePlaceholder, summaryMessageText } from '../context/contextMarkers';
import { userContent, userMessage } from '../context/userContent';
import type { CountCache, CountVariant } from './countCache';
import { extendStore, PathCountMap, PathStore, standaloneStore } from './pathCounts';
import type { TokenCounter } from './tokenCounter';
import { imagesTokens } from '../context/userImages';
import { OwnedMemo } from '../session/ownedMemo';

/** The chat message an entry becomes on the wire (pruned tool results carry the context builder's placeholder). */
export function entryMessage(
  entry: MessageEntry,
  variant: CountVariant = 'full',
  placeholder: (entry: ToolResultEntry) => string = prunePlaceholder,
): ChatMessage {
  switch (entry.type) {
    case 'user':
      return userMessage(entry);
    case 'assistant':
      return {
        role: 'assistant',
        content: entry.text.length > 0 ? entry.text : null,
        ...(entry.toolCalls.length > 0
          ? {
              tool_calls: entry.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'toolResult':
      return {
        role: 'tool',
        tool_call_id: entry.toolCallId,
        content: variant === 'pruned' ? placeholder(entry) : entry.content,
      };
  }
}

/** Tokens of one message entry as entryMessage renders it (images by their size), uncached and without building the message. */
function messageTokens(entry: MessageEntry, counter: TokenCounter, variant: CountVariant): number {
  switch (entry.type) {
    case 'user':
      return counter.countMessageParts('user', userContent(entry)) + imagesTokens(entry.images);
    case 'assistant':
      return counter.countMessageParts('assistant', entry.text, entry.toolCalls);
    case 'toolResult':
      return counter.countMessageParts('tool', variant === 'pruned' ? prunePlaceholder(entry) : entry.content);
  }
}

/** Looks the entry up in one cache table (fetched once per path), counting and recording it on a miss. */
function countInto(table: Map<string, number>, entry: MessageEntry, counter: TokenCounter, variant: CountVariant): number {
  const cached = table.get(entry.id);
  if (cached !== undefined) return cached;
  const tokens = messageTokens(entry, counter, variant);
  table.set(entry.id, tokens);
  return tokens;
}

/**
 * The summary message of a compaction, counted once: kept in the full table under the compaction's id (an entry is
 * immutable, so is its summary), so a warm open and every later count of the same context tokenize nothing again.
 */
function countSummary(table: Map<string, number>, entry: CompactionEntry, counter: TokenCounter): number {
  const cached = table.get(entry.id);
  if (cached !== undefined) return cached;
  const tokens = counter.countMessageParts('user', summaryMessageText(entry));
  table.set(entry.id, tokens);
  return tokens;
}

/** Per-entry counts the planners take: full tokens and pruned-placeholder tokens of tool results. */
export interface EntryCounts {
  full: ReadonlyMap<string, number>;
  /** Placeholders are counted lazily, on the first lookup of each (most tool results are never pruned). */
  pruned: ReadonlyMap<string, number>;
}

/** One store per count cache, encoding and path root: every path of a session shares its records. */
const stores = new OwnedMemo<CountCache, Map<string, PathStore>>('path stores');

function storeFor(path: readonly SessionEntry[], counter: TokenCounter, cache: CountCache): PathStore {
  const full = cache.table(counter.encoding, 'full');
  const pruned = cache.table(counter.encoding, 'pruned');
  const counters = {
    full: (entry: MessageEntry) => countInto(full, entry, counter, 'full'),
    pruned: (entry: ToolResultEntry) => countInto(pruned, entry, counter, 'pruned'),
    summary: (entry: CompactionEntry) => countSummary(full, entry, counter),
  };
  let byRoot = stores.get(cache);
  if (!byRoot) {
    byRoot = new Map();
    stores.set(cache, byRoot);
  }
  const key = `${counter.encoding}|${path[0]?.id ?? ''}`;
  let store = byRoot.get(key);
  if (!store) {
    store = new PathStore(path[0], counters);
    byRoot.set(key, store);
  }
  return extendStore(store, path) ? store : standaloneStore(path, counters);
}

/**
 * The counts of every message entry on a path. Each entry is tokenized once per cache (and encoding), on
 * its first lookup, so history a compaction summarized is never tokenized unless something asks for it;
 * the maps returned are views over a store shared by the session's paths, so a path that extends an
 * already counted one costs only its new entries, not a walk over the whole path.
 */
export function countPath(path: readonly SessionEntry[], counter: TokenCounter, cache: CountCache): EntryCounts {
  const store = storeFor(path, counter, cache);
  return { full: new PathCountMap(path, store, 'full'), pruned: new PathCountMap(path, store, 'pruned') };
}
