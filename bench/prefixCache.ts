// A provider's automatic prompt cache (OpenAI, Anthropic, vLLM): longest common prefix with a recent call, in blocks, and what it costs.
import type { ChatMessage, ChatToolCall, ChatToolDefinition } from '../src/core/context/chatMessage';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';

/** One request to the provider, exactly as sent. */
export interface ModelCall {
  kind: 'main' | 'summary';
  messages: readonly ChatMessage[];
  tools: readonly ChatToolDefinition[];
  /** Tokens the reply took (text and tool calls). */
  outputTokens: number;
  /** Seconds since the session started when the call was made (recorded time); absent: 10 s after the previous call. */
  at?: number;
  /** Main calls: the position in the replay's trace of the recorded reply this call got. */
  position?: number;
}

/** $ per million tokens. Cached input at a tenth of input, as OpenAI (gpt-4.1/gpt-5) and Anthropic (cache read) bill it. */
export const PRICES = { input: 3, cachedInput: 0.3, output: 15 } as const;

/**
 * The second price table: Anthropic bills the input it writes to the cache at 1.25× the input price (5-minute cache;
 * its pricing page), and with a cache breakpoint at the newest message every uncached input token is written. The
 * first table is OpenAI's and most servers': no premium.
 */
export const WRITE_PREMIUM_PRICES = { ...PRICES, input: PRICES.input * 1.25 } as const;

/** The cache rules: no hit below `minimum` tokens, then whole `step`-token blocks, kept `ttlSeconds` after last use. */
export const CACHE_RULES = { minimum: 1024, step: 128, ttlSeconds: 300, secondsPerCall: 10, maxEntries: 64 } as const;

export interface CallBill {
  prompt: number;
  cached: number;
  output: number;
  /** The prompt as interned parts (tool definitions first, then each message): see `PrefixCache.partText`. */
  parts: number[];
}

/** The priming tokens every chat completion adds after the messages (gpt-tokenizer's COMPLETION_REQUEST_TOKEN_OVERHEAD). */
const PRIMING_TOKENS = 3;

interface Part {
  text: string;
  tokens: number;
}

interface CacheEntry {
  parts: number[];
  /** cumulative[i] = tokens of parts[0..i) */
  cumulative: number[];
  lastUsed: number;
}

/** Every value a message's JSON is made from, in order (a tool call's id, name and arguments included). */
function messageFields(message: ChatMessage): unknown[] {
  const fields: unknown[] = [];
  for (const [key, value] of Object.entries(message)) {
    fields.push(key, value);
    if (key === 'tool_calls' && Array.isArray(value)) for (const call of value as ChatToolCall[]) fields.push(call.id, call.type, call.function, call.function.name, call.function.arguments);
  }
  return fields;
}

/**
 * Counts prompts with each distinct message tokenized once (the same message is sent on every later call),
 * and models the provider's cache: a call's cached tokens are its longest common prefix with a call made
 * within the TTL, rounded down to the cache's blocks. Tool definitions come first, as providers render them.
 */
export class PrefixCache {
  private readonly ids = new Map<string, number>();
  private readonly parts: Part[] = [];
  private readonly toolIds = new WeakMap<readonly ChatToolDefinition[], number>();
  private readonly messageIds = new WeakMap<ChatMessage, { id: number; fields: unknown[] }>();
  private readonly byContent = new Map<string | null, Map<string, number>>();
  private entries: CacheEntry[] = [];
  private now = 0;

  constructor(private readonly counter: TokenCounter) {}

  private intern(text: string, count: () => number): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.parts.length;
      this.parts.push({ text, tokens: count() });
      this.ids.set(text, id);
    }
    return id;
  }

  private toolsPart(tools: readonly ChatToolDefinition[]): number {
    let id = this.toolIds.get(tools);
    if (id === undefined) {
      id = this.intern(`tools:${JSON.stringify(tools)}`, () => this.counter.countTools(tools));
      this.toolIds.set(tools, id);
    }
    return id;
  }

  /**
   * A message's interned part, made once per distinct message. A long replay sends the same messages on every later
   * call: the peers' replays the same objects (remembered per object with the fields they were made from, so a
   * changed field makes the part again), ours fresh objects around the same strings (found by content, whose hash the
   * string keeps, then by the small rest). A message with images is always made again (its data URLs are filled late).
   */
  private messagePart(message: ChatMessage): number {
    const make = (): number => this.intern(JSON.stringify(message), () => this.counter.countMessage(message));
    if (message.role === 'user' && message.images) return make();
    const fields = messageFields(message);
    const known = this.messageIds.get(message);
    if (known && known.fields.length === fields.length && known.fields.every((field, i) => field === fields[i])) return known.id;
    const { content, ...rest } = message;
    const byRest = this.byContent.get(content) ?? new Map<string, number>();
    this.byContent.set(content, byRest);
    const restKey = JSON.stringify(rest);
    const id = byRest.get(restKey) ?? make();
    byRest.set(restKey, id);
    this.messageIds.set(message, { id, fields });
    return id;
  }

  /** The call as interned parts: the tool definitions, then each message. */
  private partsOf(messages: readonly ChatMessage[], tools: readonly ChatToolDefinition[]): number[] {
    const ids = [this.toolsPart(tools)];
    for (const message of messages) ids.push(this.messagePart(message));
    return ids;
  }

  /** The text an interned part was made from (`tools:` + the definitions, or a message as JSON). */
  partText(id: number): string {
    return this.parts[id]?.text ?? '';
  }

  /** Prompt tokens of a message list with its tools, as the provider counts them (no cache bookkeeping). */
  promptTokens(messages: readonly ChatMessage[], tools: readonly ChatToolDefinition[]): number {
    return this.partsOf(messages, tools).reduce((sum, id) => sum + (this.parts[id]?.tokens ?? 0), PRIMING_TOKENS);
  }

  /** Common prefix of a new call with a cached one, in tokens; inside the first differing message, pro rata of equal characters. */
  private commonPrefix(parts: readonly number[], entry: CacheEntry): number {
    let k = 0;
    while (k < parts.length && k < entry.parts.length && parts[k] === entry.parts[k]) k++;
    let tokens = entry.cumulative[k] ?? 0;
    if (k < parts.length && k < entry.parts.length) {
      const a = this.parts[parts[k] ?? -1];
      const b = this.parts[entry.parts[k] ?? -1];
      if (a && b) {
        const limit = Math.min(a.text.length, b.text.length);
        let same = 0;
        while (same < limit && a.text.charCodeAt(same) === b.text.charCodeAt(same)) same++;
        tokens += Math.floor((Math.min(a.tokens, b.tokens) * same) / Math.max(1, a.text.length));
      }
    }
    return tokens;
  }

  private blocks(tokens: number): number {
    if (tokens < CACHE_RULES.minimum) return 0;
    return CACHE_RULES.minimum + Math.floor((tokens - CACHE_RULES.minimum) / CACHE_RULES.step) * CACHE_RULES.step;
  }

  /** Starts a new session's bill: an empty cache at time 0 (the token counts stay memoized, the lookup by content is dropped). */
  reset(): void {
    this.entries = [];
    this.now = 0;
    this.byContent.clear();
  }

  /** Whether a call at `at` seconds would find nothing cached from the calls billed so far (the lifetime passed since the last). */
  expiredAt(at: number): boolean {
    return this.entries.every((entry) => at - entry.lastUsed > CACHE_RULES.ttlSeconds);
  }

  /** Bills one accepted call at the current simulated time, then caches its prefix. */
  bill(call: ModelCall): CallBill {
    this.now = call.at !== undefined ? Math.max(this.now, call.at) : this.now + CACHE_RULES.secondsPerCall;
    this.entries = this.entries.filter((entry) => this.now - entry.lastUsed <= CACHE_RULES.ttlSeconds);
    const parts = this.partsOf(call.messages, call.tools);
    const cumulative = [0];
    for (const id of parts) cumulative.push((cumulative[cumulative.length - 1] ?? 0) + (this.parts[id]?.tokens ?? 0));
    const prompt = (cumulative[cumulative.length - 1] ?? 0) + PRIMING_TOKENS;
    let best = 0;
    let hit: CacheEntry | undefined;
    for (const entry of this.entries) {
      const common = this.commonPrefix(parts, entry);
      if (common > best) {
        best = common;
        hit = entry;
      }
    }
    const cached = Math.min(prompt, this.blocks(best));
    if (hit && cached > 0) hit.lastUsed = this.now;
    this.entries.push({ parts, cumulative, lastUsed: this.now });
    if (this.entries.length > CACHE_RULES.maxEntries) this.entries.shift();
    return { prompt, cached, output: call.outputTokens, parts };
  }
}

/** Dollars for a number of uncached input, cached input and output tokens at PRICES (or another table). */
export function dollars(uncached: number, cached: number, output: number, prices: { input: number; cachedInput: number; output: number } = PRICES): number {
  return (uncached * prices.input + cached * prices.cachedInput + output * prices.output) / 1_000_000;
}
