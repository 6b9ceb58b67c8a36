// Renders session entries as the chat messages they become, and counts them once each through the cache.
import type { ChatMessage } from '../context/chatMessage';
import type { MessageEntry, SessionEntry, ToolResultEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { prunePlaceholder } from '../context/contextMarkers';
import type { CountCache, CountVariant } from './countCache';
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
  pruned: ReadonlyMap<string, number>;
}

/** Counts every message entry on a path (cached entries cost nothing). */
export function countPath(path: readonly SessionEntry[], counter: TokenCounter, cache: CountCache): EntryCounts {
  const full = new Map<string, number>();
  const pruned = new Map<string, number>();
  for (const entry of path) {
    if (!isMessageEntry(entry)) continue;
    full.set(entry.id, countEntry(entry, counter, cache, 'full'));
    if (entry.type === 'toolResult') pruned.set(entry.id, countEntry(entry, counter, cache, 'pruned'));
  }
  return { full, pruned };
}
