// Recognizes "the prompt does not fit the context window" in each server's error text, and reads the numbers it names.
import { boundedWindow, WINDOW_BOUNDS } from './contextWindow';

export interface OverflowPattern {
  provider: string;
  pattern: RegExp;
}

/**
 * Most of an error text looked at. A real overflow message is a few hundred characters; a hostile or runaway one
 * may be megabytes, and only its start is read (every pattern below is linear, so this only bounds the work).
 */
export const MAX_OVERFLOW_TEXT_CHARS = 16 * 1024;

/**
 * One row per server phrasing; the order does not matter. Checked against the error message and code. Sources of
 * each text are cited in test/unit/llmOverflow.test.ts.
 */
export const OVERFLOW_PATTERNS: readonly OverflowPattern[] = [
  { provider: 'openai', pattern: /context_length_exceeded/i },
  { provider: 'openai', pattern: /maximum context length/i },
  { provider: 'openai', pattern: /exceeds the context window/i },
  { provider: 'azure', pattern: /context_length_exceeded/i },
  { provider: 'openrouter', pattern: /context length/i },
  { provider: 'vllm', pattern: /This model's maximum context length is/i },
  { provider: 'vllm', pattern: /is longer than the maximum model length/i },
  { provider: 'llamacpp', pattern: /exceeds the available context size/i },
  { provider: 'llamacpp', pattern: /exceed_context_size_error/i },
  { provider: 'llamacpp', pattern: /\bn_ctx\b/i },
  { provider: 'lmstudio', pattern: /greater than the context length/i },
  { provider: 'lmstudio', pattern: /model is loaded with context length of only/i },
  { provider: 'lmstudio', pattern: /Reached context length of [\d,]+ tokens/i },
  { provider: 'lmstudio', pattern: /Context size has been exceeded/i },
  { provider: 'ollama', pattern: /input length exceeds/i },
  { provider: 'ollama', pattern: /exceeded max(?:imum)? context length/i },
  { provider: 'anthropic', pattern: /prompt is too long/i },
  { provider: 'anthropic', pattern: /exceed context limit/i },
  { provider: 'tgi', pattern: /`inputs` tokens \+ `max_new_tokens` must be <=/i },
  { provider: 'tgi', pattern: /`inputs` must have less than [\d,]+ tokens/i },
  { provider: 'litellm', pattern: /ContextWindowExceededError/ },
  { provider: 'gemini', pattern: /input token count.{0,40}exceeds the maximum number of tokens allowed/i },
  { provider: 'mistral', pattern: /too large for model with [\d,]+ maximum context length/i },
  { provider: 'xai', pattern: /maximum prompt length is [\d,]+/i },
  { provider: 'copilot', pattern: /prompt token count of [\d,]+ exceeds the limit of/i },
  { provider: 'copilot', pattern: /model_max_prompt_tokens_exceeded/i },
  { provider: 'sglang', pattern: /is longer than the model's context length/i },
  { provider: 'sglang', pattern: /Requested token count exceeds the model's maximum context length/i },
  { provider: 'together', pattern: /is longer than the model's context length/i },
  { provider: 'groq', pattern: /Please reduce the length of the messages or completion/i },
  { provider: 'generic', pattern: /too many tokens|token limit exceeded|exceeded model token limit|context[_ ]window[_ ]exceeded/i },
];

/** Rate-limit messages also talk about tokens ("tokens per min"); those are not overflows. */
const RATE_LIMIT_WORDING = /tokens per min|\bTPM\b|rate limit/i;

function head(text: string): string {
  return text.length > MAX_OVERFLOW_TEXT_CHARS ? text.slice(0, MAX_OVERFLOW_TEXT_CHARS) : text;
}

/** Returns the matching provider row, or undefined when the text is not a context overflow we know. */
export function matchOverflow(text: string): OverflowPattern | undefined {
  const checked = head(text);
  if (RATE_LIMIT_WORDING.test(checked)) return undefined;
  return OVERFLOW_PATTERNS.find((row) => row.pattern.test(checked));
}

/** A word for tokens and a word for a bound: what an overflow message of a server we do not know still says. */
const TOKEN_WORD = /\btokens?\b/i;
const LIMIT_WORD = /\b(?:limit|limits|maximum|max|exceeds?|exceeded|exceeding|too long|too large|too many|context|window|at most|less than|must be <=)\b/i;
/** Limits of the reply alone ("max_tokens is too large"): compacting the conversation would not help. */
const OUTPUT_LIMIT = /\b(?:max_tokens|max_completion_tokens|max_new_tokens|max_output_tokens|completion tokens|output tokens)\b/i;
const INPUT_WORD = /\b(?:input|prompt|context|messages?|conversation|request has)\b/i;

/**
 * Whether a refusal we do not recognize names a token limit of the input ("Request exceeds the 8,000 token limit"):
 * treated as an overflow (one compaction and one retry), since telling the person "bad request" would leave them
 * stuck. A text about rate limits or only about the reply's own limit is not one.
 */
export function namesTokenLimit(text: string): boolean {
  const checked = head(text);
  if (RATE_LIMIT_WORDING.test(checked) || !TOKEN_WORD.test(checked) || !LIMIT_WORD.test(checked)) return false;
  return !OUTPUT_LIMIT.test(checked) || INPUT_WORD.test(checked.replace(OUTPUT_LIMIT, ''));
}

/** A token count as servers print it, captured whole: digits, or thousands groups ("1,048,576"); never part of a longer number. */
const N = String.raw`(\d{1,12}(?:,\d{3}){0,4})(?!\d)`;
/** The same, not captured. */
const n = String.raw`\d{1,12}(?:,\d{3}){0,4}(?!\d)`;

/** A whole token count as servers print it ("4096", "1,048,576"); anything else is undefined. */
function tokenCount(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const digits = raw.replace(/,/g, '');
  if (!/^\d{1,12}$/.test(digits)) return undefined;
  return Number(digits);
}

/** Where each server names its window, first match wins (a number, optionally with thousands commas). */
const WINDOW_PHRASES: readonly RegExp[] = [
  new RegExp(String.raw`maximum context length is ${N} tokens`, 'i'),
  new RegExp(String.raw`maximum context length of ${N}`, 'i'),
  new RegExp(String.raw`context length of (?:only )?${N}`, 'i'),
  new RegExp(String.raw`available context size \(${N} tokens\)`, 'i'),
  new RegExp(String.raw`maximum model length of ${N}`, 'i'),
  new RegExp(String.raw`tokens > ${N} maximum`, 'i'),
  new RegExp(String.raw`exceed context limit: ${n} \+ ${n} > ${N}`, 'i'),
  new RegExp(String.raw`\x60max_new_tokens\x60 must be <= ${N}`, 'i'),
  new RegExp(String.raw`\x60inputs\x60 must have less than ${N} tokens`, 'i'),
  new RegExp(String.raw`maximum number of tokens allowed \(${N}\)`, 'i'),
  new RegExp(String.raw`too large for model with ${N} maximum context length`, 'i'),
  new RegExp(String.raw`maximum prompt length is ${N}`, 'i'),
  new RegExp(String.raw`exceeds the limit of ${N}`, 'i'),
  new RegExp(String.raw`exceeded model token limit: ${N}`, 'i'),
  new RegExp(String.raw`\bn_ctx\b\D{0,5}${N}`, 'i'),
];

/**
 * Where a text we have no phrase for still names the window: a window word right before a count ("the model's context
 * length (8192 tokens)", "context window of 32,768"). Read only when no phrase above matched.
 */
const ANY_WINDOW = new RegExp(String.raw`\b(?:context(?: length| window| size| limit)?|model length)\b[^\d.;]{0,24}?\(?${N}\)?(?: tokens?)?`, 'i');

/**
 * The window size a server named in its overflow error ("maximum context length is 4096", n_ctx: 4096),
 * only when within the settings' bounds ("maximum context length is 10 tokens" is garbage, not a window).
 */
export function contextWindowFromError(text: string, body?: unknown): number | undefined {
  if (typeof body === 'object' && body !== null) {
    const nCtx = boundedWindow((body as Record<string, unknown>)['n_ctx']);
    if (nCtx !== undefined) return nCtx;
  }
  const checked = head(text);
  for (const phrase of WINDOW_PHRASES) {
    const match = phrase.exec(checked);
    if (match) return boundedWindow(tokenCount(match[1]));
  }
  const named = ANY_WINDOW.exec(checked);
  return named ? boundedWindow(tokenCount(named[1])) : undefined;
}

/** The most a refused prompt can believably have counted; a larger figure is garbage. */
const MAX_PROMPT_TOKENS = WINDOW_BOUNDS.max * 10;

function promptCount(value: number | undefined): number | undefined {
  return value !== undefined && Number.isSafeInteger(value) && value > 0 && value <= MAX_PROMPT_TOKENS ? value : undefined;
}

/** The parts of a "(X in the messages, Y in the functions, Z in the completion)" or "(X of text input, Y in the output)" split that are the prompt. */
function promptFromSplit(text: string): number | undefined {
  for (const split of text.matchAll(/\(([^()]{1,300})\)/g)) {
    let total = 0;
    let found = false;
    for (const part of (split[1] ?? '').matchAll(new RegExp(String.raw`${N} (?:in the (?:messages|functions|tools)|of (?:[a-z]+ )?input)`, 'gi'))) {
      const count = tokenCount(part[1]);
      if (count === undefined) return undefined;
      total += count;
      found = true;
    }
    if (found) return total;
  }
  return undefined;
}

/** Where each server names the size of the prompt it refused, first match wins. */
const PROMPT_PHRASES: readonly RegExp[] = [
  new RegExp(String.raw`resulted in ${N} tokens`, 'i'),
  new RegExp(String.raw`request has ${N} input tokens`, 'i'),
  new RegExp(String.raw`prompt contains at least ${N} input tokens`, 'i'),
  new RegExp(String.raw`request \(${N} tokens\) exceeds`, 'i'),
  new RegExp(String.raw`keep the first ${N} tokens`, 'i'),
  new RegExp(String.raw`prompt \(length ${N}\)`, 'i'),
  new RegExp(String.raw`prompt is too long: ${N} tokens`, 'i'),
  new RegExp(String.raw`exceed context limit: ${N} \+`, 'i'),
  new RegExp(String.raw`Given: ${N} \x60inputs\x60 tokens`, 'i'),
  new RegExp(String.raw`\x60inputs\x60 must have less than ${n} tokens\. Given: ${N}`, 'i'),
  new RegExp(String.raw`input token count \(${N}\)`, 'i'),
  new RegExp(String.raw`prompt contains ${N} tokens`, 'i'),
  new RegExp(String.raw`request contains ${N} tokens`, 'i'),
  new RegExp(String.raw`prompt token count of ${N}`, 'i'),
  new RegExp(String.raw`\(requested: ${N}\)`, 'i'),
  new RegExp(String.raw`${N} tokens from the input messages`, 'i'),
];

/** Where a text we have no phrase for still names the prompt's size: "The input (9000 tokens)", "prompt has 9,000 tokens". */
const ANY_PROMPT = new RegExp(String.raw`\b(?:input|prompt|messages)\b(?: \w+){0,2}?\s*\(?${N}\)? (?:input |prompt )?tokens\b`, 'i');

/**
 * The prompt size the server counted, when its overflow error says ("However, you requested 8416 tokens
 * (2991 in the messages, 5425 in the completion)", "your request has 9366 input tokens", llama.cpp's
 * n_prompt_tokens): as good as a usage report for the prompt that was refused.
 */
export function promptTokensFromError(text: string, body?: unknown): number | undefined {
  if (typeof body === 'object' && body !== null) {
    const prompt = promptCount((body as Record<string, unknown>)['n_prompt_tokens'] as number | undefined);
    if (prompt !== undefined) return prompt;
  }
  const checked = head(text);
  const fromSplit = promptCount(promptFromSplit(checked));
  if (fromSplit !== undefined) return fromSplit;
  for (const phrase of PROMPT_PHRASES) {
    const match = phrase.exec(checked);
    if (match) return promptCount(tokenCount(match[1]));
  }
  const named = ANY_PROMPT.exec(checked);
  return named ? promptCount(tokenCount(named[1])) : undefined;
}

/** What an overflow error's text (of any model, VS Code's included) says of the window and of the refused prompt. */
export function overflowFacts(text: string, body?: unknown): { contextWindow?: number; promptTokens?: number } {
  const contextWindow = contextWindowFromError(text, body);
  const promptTokens = promptTokensFromError(text, body);
  return { ...(contextWindow !== undefined ? { contextWindow } : {}), ...(promptTokens !== undefined ? { promptTokens } : {}) };
}

/**
 * How a failed call's text reads: a known overflow (its numbers read), a refusal that names a token limit
 * (an overflow whose numbers we do not trust), or neither.
 */
export function classifyOverflow(text: string, body?: unknown): { recognized: boolean; contextWindow?: number; promptTokens?: number } | undefined {
  if (matchOverflow(text)) return { recognized: true, ...overflowFacts(text, body) };
  return namesTokenLimit(text) ? { recognized: false } : undefined;
}

/**
 * Where a refusal of the reply's size names the most it takes: Groq ("`max_tokens` must be less than or equal to
 * `8192`"), TGI ("`max_new_tokens` must be <= 4096"), OpenAI ("supports at most 16384 completion tokens"), Anthropic
 * through a proxy ("> 64000, which is the maximum allowed number of output tokens"), Ollama's cloud models ("maximum
 * output tokens (65536)"), DeepSeek ("the valid range of max_tokens is [1, 8192]").
 */
const OUTPUT_LIMIT_PHRASES: readonly RegExp[] = [
  new RegExp(String.raw`must be less than or equal to \x60?${N}\x60?`, 'i'),
  new RegExp(String.raw`\x60?max_new_tokens\x60? must be <= ${N}`, 'i'),
  new RegExp(String.raw`supports at most ${N} completion tokens`, 'i'),
  new RegExp(String.raw`> ${N}, which is the maximum allowed number of output tokens`, 'i'),
  new RegExp(String.raw`maximum output tokens \(${N}\)`, 'i'),
  new RegExp(String.raw`valid range of max_tokens is \[1, ${N}\]`, 'i'),
];

/** Fewest reply tokens a named output limit may be (a smaller figure is garbage, not a limit to ask for). */
const MIN_OUTPUT_LIMIT = 16;

/**
 * The most reply tokens a refusal of the request's max_tokens says the server takes, when the refusal is about the
 * reply's size alone (an overflow of the prompt is not one) and names it within bounds.
 */
export function outputLimitFromError(text: string): number | undefined {
  const checked = head(text);
  if (!OUTPUT_LIMIT.test(checked) || matchOverflow(checked)) return undefined;
  for (const phrase of OUTPUT_LIMIT_PHRASES) {
    const match = phrase.exec(checked);
    if (!match) continue;
    const limit = tokenCount(match[1]);
    return limit !== undefined && limit >= MIN_OUTPUT_LIMIT && limit <= WINDOW_BOUNDS.max ? limit : undefined;
  }
  return undefined;
}
