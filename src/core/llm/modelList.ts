// Reads model ids and their limits from a /models listing, whichever server-specific fields it uses.
export interface ModelInfo {
  id: string;
  contextWindow?: number;
  maxOutputTokens?: number;
}

function positiveNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

function field(record: Record<string, unknown>, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function firstNumber(record: Record<string, unknown>, paths: readonly string[]): number | undefined {
  for (const path of paths) {
    const value = positiveNumber(field(record, path));
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Where each server puts the window: OpenRouter/Together context_length, vLLM max_model_len, LM Studio
 * max_context_length / loaded_context_length, llama.cpp meta.n_ctx (n_ctx_train is the trained maximum,
 * used only when the loaded size is not given), Groq context_window.
 */
const CONTEXT_FIELDS = [
  'context_length',
  'context_window',
  'max_model_len',
  'loaded_context_length',
  'max_context_length',
  'meta.n_ctx',
  'top_provider.context_length',
  'meta.n_ctx_train',
] as const;

const OUTPUT_FIELDS = ['top_provider.max_completion_tokens', 'max_completion_tokens', 'max_output_tokens'] as const;

/** Parses one entry of the listing; undefined when it has no id. */
export function parseModelInfo(raw: unknown): ModelInfo | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const record = raw as Record<string, unknown>;
  const id = record['id'] ?? record['name'] ?? record['model'];
  if (typeof id !== 'string' || id === '') return undefined;
  const info: ModelInfo = { id };
  const contextWindow = firstNumber(record, CONTEXT_FIELDS);
  if (contextWindow !== undefined) info.contextWindow = contextWindow;
  const maxOutputTokens = firstNumber(record, OUTPUT_FIELDS);
  if (maxOutputTokens !== undefined) info.maxOutputTokens = maxOutputTokens;
  return info;
}

/** Parses a whole listing body ({data: [...]}, llama.cpp's {models: [...]}, or a bare array). */
export function parseModelList(body: unknown): ModelInfo[] {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const entries = Array.isArray(body) ? body : Array.isArray(record['data']) ? record['data'] : record['models'];
  if (!Array.isArray(entries)) return [];
  const seen = new Set<string>();
  const models: ModelInfo[] = [];
  for (const entry of entries) {
    const info = parseModelInfo(entry);
    if (info && !seen.has(info.id)) {
      seen.add(info.id);
      models.push(info);
    }
  }
  return models;
}
