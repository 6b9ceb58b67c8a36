// Finds the positions where a message list may be cut without separating a tool call from its results.
import type { MessageEntry } from '../session/entries';

/**
 * valid[j] is true when cutting before messages[j] keeps every tool pair on one side: messages[j] is
 * a user or assistant message (never a tool result) and no call before j has its result at or after j.
 * Index 0 is never a cut (nothing would be summarized).
 */
export function validCuts(messages: readonly MessageEntry[]): boolean[] {
  const n = messages.length;
  const callIndex = new Map<string, number>();
  // spanning[j] > 0 when some tool pair starts before j and ends at or after j.
  const delta = new Array<number>(n + 1).fill(0);
  messages.forEach((entry, index) => {
    if (entry.type === 'assistant') for (const call of entry.toolCalls) callIndex.set(call.id, index);
    if (entry.type === 'toolResult') {
      const from = callIndex.get(entry.toolCallId);
      if (from !== undefined && from < index) {
        delta[from + 1] = (delta[from + 1] ?? 0) + 1;
        delta[index + 1] = (delta[index + 1] ?? 0) - 1;
      }
    }
  });
  const valid = new Array<boolean>(n).fill(false);
  let spanning = 0;
  for (let j = 0; j < n; j++) {
    spanning += delta[j] ?? 0;
    const type = messages[j]?.type;
    valid[j] = j > 0 && spanning === 0 && (type === 'user' || type === 'assistant');
  }
  return valid;
}
