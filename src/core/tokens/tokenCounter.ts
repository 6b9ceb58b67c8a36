// Counts tokens of text, chat messages and tool definitions with gpt-tokenizer, loaded lazily on first use.
import { imagesTokens } from '../context/userImages';
import {
  COMPLETION_REQUEST_TOKEN_OVERHEAD,
  FUNCTION_CALL_METADATA_TOKEN_OVERHEAD,
  MESSAGE_TOKEN_OVERHEAD,
  estimateTokensInFunctions,
} from 'gpt-tokenizer/functionCalling';
import type { ChatMessage, ChatToolDefinition } from '../context/chatMessage';
import { encodingForModel, type EncodingName } from './encoding';
import { toFunctionDefinitions } from './functionDefinitions';
import { countBoundedRuns } from './boundedRuns';
import { textSlices } from './textSlices';

type CountText = (text: string) => number;

/** The counted text of one tool call (an assistant's call or its wire `function` object). */
export interface ToolCallText {
  name: string;
  arguments: string;
}

/** Cheap chars/4 estimate, only for use before the tokenizer has loaded (it misses by 10–30 %). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Loads one encoding's BPE tables. The dynamic import keeps the ~2 MB tables (and ~200 ms of
 * parsing) out of extension start-up: nothing is loaded until a counter is created.
 */
async function loadEncoding(encoding: EncodingName): Promise<CountText> {
  const module =
    encoding === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  // Special-token text in tool output (e.g. "<|endoftext|>") is ordinary text to us, never a control token.
  const plain = { disallowedSpecial: new Set<string>() };
  const countPlain = (text: string): number => module.countTokens(text, plain);
  return (text: string) => (text ? countBoundedRuns(text, countPlain) : 0);
}

const loaded = new Map<EncodingName, Promise<CountText>>();

function sharedEncoding(encoding: EncodingName): Promise<CountText> {
  let promise = loaded.get(encoding);
  if (!promise) {
    promise = loadEncoding(encoding);
    loaded.set(encoding, promise);
    // A failed load must not poison later attempts.
    promise.catch(() => loaded.delete(encoding));
  }
  return promise;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Counts as the model receives the request: the chat-format overhead per message (gpt-tokenizer's
 * countMessageTokens), tool-call names and arguments, tool definitions rendered the way OpenAI
 * renders them, and the reply priming. For non-OpenAI models the count is an o200k estimate.
 */
export class TokenCounter {
  private constructor(
    readonly modelId: string,
    readonly encoding: EncodingName,
    /** True when the encoding is the model's own tokenizer (OpenAI models). */
    readonly exact: boolean,
    private readonly count: CountText,
  ) {}

  /** Role names repeat on every message: tokenized once each (same sum as countMessageTokens). */
  private readonly roleTokens = new Map<string, number>();
  /** Tool definitions are counted on every step with the same array: once per array. */
  private readonly toolTokens = new WeakMap<readonly ChatToolDefinition[], number>();

  static async create(modelId: string): Promise<TokenCounter> {
    const choice = encodingForModel(modelId);
    const count = await sharedEncoding(choice.encoding);
    return new TokenCounter(modelId, choice.encoding, choice.exact, count);
  }

  /** Tokens of a plain text (synchronous: use countTextSliced for multi-megabyte texts). */
  countText(text: string): number {
    return this.count(text);
  }

  /** One message with its chat-format overhead; each tool call adds its name, arguments and call framing; each image its tiles. */
  countMessage(message: ChatMessage): number {
    const calls = message.role === 'assistant' ? message.tool_calls?.map((call) => call.function) : undefined;
    const images = message.role === 'user' ? imagesTokens(message.images) : 0;
    return this.countMessageParts(message.role, message.content, calls) + images;
  }

  /**
   * countMessage without building the message object: what per-entry counting calls on its hot path
   * (short-lived message objects there cost more than the bookkeeping around them).
   */
  countMessageParts(role: ChatMessage['role'], content: string | null | undefined, toolCalls?: readonly ToolCallText[]): number {
    let roleTokens = this.roleTokens.get(role);
    if (roleTokens === undefined) {
      roleTokens = this.count(role);
      this.roleTokens.set(role, roleTokens);
    }
    // gpt-tokenizer's countMessageTokens: role + content + the per-message overhead (no name, no function role here).
    let tokens = roleTokens + (content ? this.count(content) : 0) + MESSAGE_TOKEN_OVERHEAD;
    if (toolCalls) {
      for (const call of toolCalls) tokens += this.count(call.name) + this.count(call.arguments) + FUNCTION_CALL_METADATA_TOKEN_OVERHEAD;
    }
    return tokens;
  }

  /** A whole message list as sent, including the tokens that prime the assistant's reply. */
  countMessages(messages: readonly ChatMessage[]): number {
    let total = COMPLETION_REQUEST_TOKEN_OVERHEAD;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  /** The request's `tools` array as the model receives it (a TypeScript-like namespace of functions). */
  countTools(tools: readonly ChatToolDefinition[]): number {
    if (tools.length === 0) return 0;
    let tokens = this.toolTokens.get(tools);
    if (tokens === undefined) {
      tokens = estimateTokensInFunctions(toFunctionDefinitions(tools), this.count);
      this.toolTokens.set(tools, tokens);
    }
    return tokens;
  }

  /**
   * Counts a huge text without blocking the event loop: 64k-char slices cut at whitespace/line
   * boundaries, yielding between slices. The sum differs from countText(text) by at most about one
   * token per slice boundary (zero at clean boundaries). Rejects with the signal's reason when aborted.
   */
  async countTextSliced(text: string, signal?: AbortSignal): Promise<number> {
    const slices = textSlices(text);
    let total = 0;
    for (const [index, slice] of slices.entries()) {
      signal?.throwIfAborted();
      if (index > 0) await yieldToEventLoop();
      signal?.throwIfAborted();
      total += this.count(slice);
    }
    return total;
  }
}
