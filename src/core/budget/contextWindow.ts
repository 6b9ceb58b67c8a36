// Resolves the model's context window from the user's setting, model metadata, the endpoint's model list, or 128k.

export const DEFAULT_CONTEXT_WINDOW = 128_000;

export type ContextWindowSource = 'setting' | 'model' | 'endpoint' | 'default';

export interface ContextWindowInputs {
  /** The `context.windowTokens` setting; 0 or absent means "not set". */
  setting?: number | null;
  /** The context window known for the model (e.g. gpt-tokenizer's model spec). */
  modelMetadata?: { contextWindow?: number | null } | null;
  /** The window the endpoint's /models list reports for the model (context_length, max_model_len...). */
  endpointList?: number | null;
}

function usable(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * The context window is the model's INPUT+OUTPUT capacity, never the max output tokens (the bug in
 * the Go agent's issue). First usable source wins; the result says which one, for the UI.
 */
export function resolveContextWindow(inputs: ContextWindowInputs): { tokens: number; source: ContextWindowSource } {
  if (usable(inputs.setting)) return { tokens: Math.floor(inputs.setting), source: 'setting' };
  const fromModel = inputs.modelMetadata?.contextWindow;
  if (usable(fromModel)) return { tokens: Math.floor(fromModel), source: 'model' };
  if (usable(inputs.endpointList)) return { tokens: Math.floor(inputs.endpointList), source: 'endpoint' };
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' };
}
