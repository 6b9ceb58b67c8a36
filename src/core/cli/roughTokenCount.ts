// Default token counter for the CLI until the exact tokenizer is wired in: about four characters per token.
import type { ChatMessage } from '../context/chatMessage';

/** Counts messages' tokens; the CLI takes one as a dependency so the exact counter can replace this estimate. */
export type CountTokens = (messages: readonly ChatMessage[]) => number;

const PER_MESSAGE_OVERHEAD = 4;

export const roughTokenCount: CountTokens = (messages) => {
  let chars = 0;
  for (const message of messages) {
    chars += (message.content ?? '').length;
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
    if (message.role === 'tool') chars += message.tool_call_id.length;
  }
  return Math.ceil(chars / 4) + PER_MESSAGE_OVERHEAD * messages.length;
};
