// Recognizes "the prompt does not fit the context window" in each server's error shape, and silent overflow in usage.
import { boundedWindow } from './contextWindow';

export interface OverflowPattern {
  provider: string;
  pattern: RegExp;
}

/** One row per server phrasing; the order does not matter. Checked against the error message and code. */
export const OVERFLOW_PATTERNS: readonly OverflowPattern[] = [
  { provider: 'openai', pattern: /context_length_exceeded/i },
  { provider: 'openai', pattern: /maximum context length/i },
  { provider: 'openai', pattern: /exceeds the context window/i },
  { provider: 'azure', pattern: /context_length_exceeded/i },
  { provider: 'openrouter', pattern: /context length/i },
  { provider: 'vllm', pattern: /This model's maximum context length is/i },
  { provider: 'llamacpp', pattern: /exceeds the available context size/i },
  { provider: 'llamacpp', pattern: /exceed_context_size_error/i },
  { provider: 'llamacpp', pattern: /\bn_ctx\b/i },
  { provider: 'lmstudio', pattern: /greater than the context length/i },
  { provider: 'lmstudio', pattern: /model is loaded with context length of only/i },
  { provider: 'ollama', pattern: /input length exceeds/i },
  { provider: 'anthropic', pattern: /prompt is too long/i },
  { provider: 'generic', pattern: /too many tokens|token limit exceeded|context[_ ]window[_ ]exceeded/i },
];

/** Rate-limit messages also talk about tokens ("tokens per min"); those are not overflows. */
const RATE_LIMIT_WORDING = /tokens per min|\bTPM\b|rate limit/i;

/** Returns the matching provider row, or undefined when the text is not a context overflow. */
export function matchOverflow(text: string): OverflowPattern | undefined {
  if (RATE_LIMIT_WORDING.test(text)) return undefined;
  return OVERFLOW_PATTERNS.find((row) => row.pattern.test(text));
}

/**
 * The window size a server named in its overflow error ("maximum context length is 4096", n_ctx: 4096),
 * only when within the settings' bounds ("maximum context length is 10 tokens" is garbage, not a window).
 */
export function contextWindowFromError(text: string, body?: unknown): number | undefined {
  if (typeof body === 'object' && body !== null) {
    const nCtx = boundedWindow((body as Record<string, unknown>)['n_ctx']);
    if (nCtx !== undefined) return nCtx;
  }
  const match =
    /maximum context length is (\d{1,12})/i.exec(text) ??
    /context length of (?:only )?(\d{1,12})/i.exec(text) ??
    /\bn_ctx\b\D{0,5}(\d{1,12})/i.exec(text);
  return match?.[1] ? boundedWindow(Number(match[1])) : undefined;
}

/**
 * The prompt size the server counted, when its overflow error says ("However, you requested 8416 tokens
 * (2991 in the messages, 5425 in the completion)", "your request has 9366 input tokens", llama.cpp's
 * n_prompt_tokens): as good as a usage report for the prompt that was refused.
 */
export function promptTokensFromError(text: string, body?: unknown): number | undefined {
  if (typeof body === 'object' && body !== null) {
    const prompt = (body as Record<string, unknown>)['n_prompt_tokens'];
    if (typeof prompt === 'number' && Number.isSafeInteger(prompt) && prompt > 0) return prompt;
  }
  const match = /\((\d+) in the messages/i.exec(text) ?? /request has (\d+) input tokens/i.exec(text) ?? /resulted in (\d+) tokens/i.exec(text);
  const value = match?.[1] ? Number(match[1]) : undefined;
  return value !== undefined && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** What an overflow error's text (of any model, VS Code's included) says of the window and of the refused prompt. */
export function overflowFacts(text: string, body?: unknown): { contextWindow?: number; promptTokens?: number } {
  const contextWindow = contextWindowFromError(text, body);
  const promptTokens = promptTokensFromError(text, body);
  return { ...(contextWindow !== undefined ? { contextWindow } : {}), ...(promptTokens !== undefined ? { promptTokens } : {}) };
}
