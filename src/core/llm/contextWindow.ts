// Resolves the model's context window from the setting, a learned window, model metadata, the endpoint's list, a server probe, or 128k.
import { SETTING_SPECS } from '../settings/settings';

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * The windows any source but the setting may give: the bounds of compactionAgent.context.windowOverrides.
 * A server's "1" or "1e18", or an error text naming "10 tokens", is garbage and ignored.
 */
export const WINDOW_BOUNDS = {
  min: SETTING_SPECS['context.windowOverrides'].minimum,
  max: SETTING_SPECS['context.windowOverrides'].maximum,
} as const;

/**
 * 'learned': an overflow error or a truncated prompt of this endpoint and model showed it (remembered
 * across sessions); 'server': the server's own API said what it runs (Ollama /api/ps, llama.cpp /props,
 * LM Studio loaded instances); 'untilLoaded': only the trained or maximum length is known, the real one
 * is unknown until the server loads the model.
 */
export type ContextWindowSource = 'setting' | 'learned' | 'model' | 'endpoint' | 'server' | 'untilLoaded' | 'default';

/** A window from one source, with where exactly it came from (e.g. "Ollama /api/show num_ctx"). */
export interface WindowFact {
  contextWindow?: number | null;
  detail?: string;
  /** Only a trained or maximum length: what the server will run is unknown until it loads the model. */
  untilLoaded?: boolean;
  /** What the server will load the model with, read before it did: read again after the first reply. */
  beforeLoad?: boolean;
}

/** A window learned from this endpoint and model, with what the server itself reported when it was learned. */
export interface LearnedFact {
  contextWindow: number;
  detail?: string;
  /** The window the server or model metadata reported at the time (a later, larger report replaces the learned one). */
  reported?: number;
}

export interface ContextWindowInputs {
  /** The `context.windowTokens` setting; 0 or absent means "not set". */
  setting?: number | null;
  /** A window learned from an overflow error or a truncated prompt of this endpoint and model. */
  learned?: number | LearnedFact | null;
  /** The context window known for the model (e.g. gpt-tokenizer's model data, VS Code's maxInputTokens). */
  modelMetadata?: WindowFact | null;
  /** The window the endpoint's /models list reports for the model (context_length, max_model_len...). */
  endpointList?: number | null;
  /** Said of the listed window when it is not the entry's own (a LoRA adapter's base model, an OpenRouter variant's base id). */
  endpointDetail?: string;
  /** The window the server's own API reports, asked when the listing says nothing. */
  server?: WindowFact | null;
}

export interface ResolvedWindow {
  tokens: number;
  source: ContextWindowSource;
  /** Said instead of the source's generic label, when the source knows more. */
  detail?: string;
  /** Set when a learned window was passed over because the server now reports a larger one: forget it. */
  replacedLearned?: true;
  /** The server's window was read before it loaded the model: the first reply's load may lower it, so ask again. */
  readBeforeLoad?: true;
}

/** A window within WINDOW_BOUNDS, as a whole number; anything else (garbage, absurd sizes) is undefined. */
export function boundedWindow(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const tokens = Math.floor(value);
  return tokens >= WINDOW_BOUNDS.min && tokens <= WINDOW_BOUNDS.max ? tokens : undefined;
}

function usableSetting(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function fact(tokens: number, source: ContextWindowSource, detail: string | undefined): ResolvedWindow {
  return detail ? { tokens, source, detail } : { tokens, source };
}

/** Whether the window is one a source told us (not the 128k assumption, not a length the server may not load). */
export function windowIsKnown(source: ContextWindowSource): boolean {
  return source !== 'default' && source !== 'untilLoaded';
}

/** What the server and the model's metadata say, without the setting and without anything learned. */
function reportedWindow(inputs: ContextWindowInputs): ResolvedWindow {
  const fromModel = boundedWindow(inputs.modelMetadata?.contextWindow);
  if (fromModel !== undefined) return fact(fromModel, 'model', inputs.modelMetadata?.detail);
  const listed = boundedWindow(inputs.endpointList);
  if (listed !== undefined) return fact(listed, 'endpoint', inputs.endpointDetail);
  const fromServer = boundedWindow(inputs.server?.contextWindow);
  if (fromServer !== undefined) {
    const resolved = fact(fromServer, inputs.server?.untilLoaded ? 'untilLoaded' : 'server', inputs.server?.detail);
    return inputs.server?.beforeLoad && !inputs.server.untilLoaded ? { ...resolved, readBeforeLoad: true } : resolved;
  }
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' };
}

function learnedFact(learned: ContextWindowInputs['learned']): LearnedFact | undefined {
  const value = typeof learned === 'number' ? { contextWindow: learned } : learned ?? undefined;
  const tokens = boundedWindow(value?.contextWindow);
  if (!value || tokens === undefined) return undefined;
  return { ...value, contextWindow: tokens };
}

/**
 * The context window is the model's INPUT+OUTPUT capacity, never the max output tokens (the bug in
 * the Go agent's issue). The setting wins; then a learned window, unless the server now reports a
 * window larger than both the learned one and what it reported when that was learned (the user raised
 * num_ctx or restarted llama.cpp with a larger -c); then the model's metadata, the listing, the server's
 * own API. Every source but the setting must lie within WINDOW_BOUNDS. The result says which one won.
 */
export function resolveContextWindow(inputs: ContextWindowInputs): ResolvedWindow {
  if (usableSetting(inputs.setting)) return { tokens: Math.floor(inputs.setting), source: 'setting' };
  const reported = reportedWindow(inputs);
  const learned = learnedFact(inputs.learned);
  if (!learned) return reported;
  const grewBack = windowIsKnown(reported.source) && reported.tokens > learned.contextWindow && reported.tokens > (learned.reported ?? 0);
  if (grewBack) return { ...reported, replacedLearned: true };
  return fact(learned.contextWindow, 'learned', learned.detail);
}
