// Resolves the model's context window from the setting, a learned window, model metadata, the endpoint's list, a server probe, or 128k.

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * 'learned': an overflow error of this endpoint and model named it (remembered across sessions);
 * 'server': the server's own API said it (Ollama /api/show, llama.cpp /props, LM Studio /api/v0).
 */
export type ContextWindowSource = 'setting' | 'learned' | 'model' | 'endpoint' | 'server' | 'default';

/** A window from one source, with where exactly it came from (e.g. "Ollama /api/show num_ctx"). */
export interface WindowFact {
  contextWindow?: number | null;
  detail?: string;
}

export interface ContextWindowInputs {
  /** The `context.windowTokens` setting; 0 or absent means "not set". */
  setting?: number | null;
  /** A window learned from an overflow error of this endpoint and model. */
  learned?: number | null;
  /** The context window known for the model (e.g. gpt-tokenizer's model data, VS Code's maxInputTokens). */
  modelMetadata?: WindowFact | null;
  /** The window the endpoint's /models list reports for the model (context_length, max_model_len...). */
  endpointList?: number | null;
  /** The window the server's own API reports, asked when the listing says nothing. */
  server?: WindowFact | null;
}

export interface ResolvedWindow {
  tokens: number;
  source: ContextWindowSource;
  /** Said instead of the source's generic label, when the source knows more. */
  detail?: string;
}

function usable(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function withDetail(tokens: number, source: ContextWindowSource, detail: string | undefined): ResolvedWindow {
  return detail ? { tokens: Math.floor(tokens), source, detail } : { tokens: Math.floor(tokens), source };
}

/**
 * The context window is the model's INPUT+OUTPUT capacity, never the max output tokens (the bug in
 * the Go agent's issue). First usable source wins; the result says which one, for the UI.
 */
export function resolveContextWindow(inputs: ContextWindowInputs): ResolvedWindow {
  if (usable(inputs.setting)) return { tokens: Math.floor(inputs.setting), source: 'setting' };
  if (usable(inputs.learned)) return { tokens: Math.floor(inputs.learned), source: 'learned' };
  const fromModel = inputs.modelMetadata?.contextWindow;
  if (usable(fromModel)) return withDetail(fromModel, 'model', inputs.modelMetadata?.detail);
  if (usable(inputs.endpointList)) return { tokens: Math.floor(inputs.endpointList), source: 'endpoint' };
  const fromServer = inputs.server?.contextWindow;
  if (usable(fromServer)) return withDetail(fromServer, 'server', inputs.server?.detail);
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' };
}
