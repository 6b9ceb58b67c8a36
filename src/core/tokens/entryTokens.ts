// Renders session entries as the chat messages they become, and counts them once each through the cache.
import type { ChatMessage } from '../context/chatMessage';
import type { MessageEntry, SessionEntry, ToolResultEntry } from '../session/entries';
import { prunePlaceholder } from '../context/contextMarkers';
import type { CountCache, CountVariant } from './countCache';
import { extendStore, PathCountMap, PathStore, standaloneStore } from './pathCounts';
import type { TokenCounter } from './tokenCounter';
import { IMAGE_TOKENS_ESTIMATE } from './tokenCounter';

/** The chat message an entry becomes on the wire (pruned tool results carry the context builder's placeholder). */
export function entryMessage(
  entry: MessageEntry,
  variant: CountVariant = 'full',
  placeholder: (entry: ToolResultEntry) => string = prunePlaceholder,
): ChatMessage {
  switch (entry.type) {
    case 'user':
      return { role: 'user', content: entry.text };
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

/** Tokens one message entry costs in the prompt, counted once per encoding and variant. */
export function countEntry(
  entry: MessageEntry,
  counter: TokenCounter,
  cache: CountCache,
  variant: CountVariant = 'full',
): number {
  return cache.getOrCount(entry.id, counter.encoding, variant, () => {
    const images = entry.type === 'user' ? (entry.images?.length ?? 0) : 0;
    return counter.countMessage(entryMessage(entry, variant)) + images * IMAGE_TOKENS_ESTIMATE;
  });
}

/** Per-entry counts the planners take: full tokens and pruned-placeholder tokens of tool results. */
export interface EntryCounts {
  full: ReadonlyMap<string, number>;
  /** Placeholders are counted lazily, on the first lookup of each (most tool results are never pruned). */
  pruned: ReadonlyMap<string, number>;
}

/** One store per count cache, encoding and path root: every path of a session shares its records. */
const stores = new WeakMap<CountCache, Map<string, PathStore>>();

function storeFor(path: readonly SessionEntry[], counter: TokenCounter, cache: CountCache): PathStore {
  const counters = {
    full: (entry: MessageEntry) => countEntry(entry, counter, cache, 'full'),
    pruned: (entry: ToolResultEntry) => countEntry(entry, counter, cache, 'pruned'),
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
 * Counts every message entry on a path. Each entry is tokenized once per cache (and encoding); the
 * maps returned are views over a store shared by the session's paths, so a path that extends an
 * already counted one costs only its new entries, not a walk over the whole path.
 */
export function countPath(path: readonly SessionEntry[], counter: TokenCounter, cache: CountCache): EntryCounts {
  const store = storeFor(path, counter, cache);
  return { full: new PathCountMap(path, store, 'full'), pruned: new PathCountMap(path, store, 'pruned') };
}
