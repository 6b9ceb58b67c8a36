// Reads model ids and their limits from a /models listing, whichever server-specific fields it uses; every number bounded.
import { boundedWindow, WINDOW_BOUNDS } from './contextWindow';

export interface ModelInfo {
  id: string;
  /** The window the server runs the model with, when the listing says. */
  contextWindow?: number;
  /** Only the trained or maximum length (llama.cpp n_ctx_train, LM Studio max_context_length): not what runs. */
  trainedWindow?: number;
  maxOutputTokens?: number;
  /**
   * The listed model this one is served from, when the entry names one: vLLM's `parent` of a LoRA adapter, or the
   * `root` of a prompt adapter (a base model's `root` is a path, which names no listed model).
   */
  parent?: string;
  /** Where contextWindow came from when it is not this entry's own field (its base model's, its variant's base id). */
  windowDetail?: string;
}

/** Entries of a listing read, and the longest id kept: a listing is a few hundred models with short names. */
export const MAX_LISTED_MODELS = 10_000;
export const MAX_MODEL_ID_CHARS = 512;

function outputTokens(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) return undefined;
  const tokens = Math.floor(value);
  return tokens <= WINDOW_BOUNDS.max ? tokens : undefined;
}

function field(record: Record<string, unknown>, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function firstNumber(record: Record<string, unknown>, paths: readonly string[], read: (value: unknown) => number | undefined): number | undefined {
  for (const path of paths) {
    const value = read(field(record, path));
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Where each server puts the window it runs: OpenRouter/Together context_length, vLLM max_model_len,
 * LM Studio loaded_context_length, llama.cpp meta.n_ctx (older builds), Groq context_window.
 */
const CONTEXT_FIELDS = ['context_length', 'context_window', 'max_model_len', 'loaded_context_length', 'meta.n_ctx', 'top_provider.context_length'] as const;

/** Lengths that say what the model can take, not what the server runs (llama.cpp's meta.n_ctx_train, LM Studio's maximum). */
const TRAINED_FIELDS = ['meta.n_ctx_train', 'max_context_length'] as const;

/**
 * `max_context_length` is LM Studio's most a model can be loaded with in its /api/v0 listing, whose entries say their
 * `state`; in Mistral's /v1/models (BaseModelCard, no `state`) it is the model's window, as the API serves it.
 */
function windowIsMaxContextLength(record: Record<string, unknown>): boolean {
  return record['state'] === undefined && boundedWindow(record['max_context_length']) !== undefined;
}

const OUTPUT_FIELDS = ['top_provider.max_completion_tokens', 'max_completion_tokens', 'max_output_tokens'] as const;

/** Parses one entry of the listing; undefined when it has no usable id. */
export function parseModelInfo(raw: unknown): ModelInfo | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const record = raw as Record<string, unknown>;
  const id = record['id'] ?? record['name'] ?? record['model'];
  if (typeof id !== 'string' || id === '' || id.length > MAX_MODEL_ID_CHARS) return undefined;
  const info: ModelInfo = { id };
  const contextWindow = firstNumber(record, CONTEXT_FIELDS, boundedWindow);
  if (contextWindow !== undefined) info.contextWindow = contextWindow;
  else if (windowIsMaxContextLength(record)) {
    info.contextWindow = boundedWindow(record['max_context_length']);
    info.windowDetail = "the model list's max_context_length";
  } else {
    const trained = firstNumber(record, TRAINED_FIELDS, boundedWindow);
    if (trained !== undefined) info.trainedWindow = trained;
  }
  const maxOutputTokens = firstNumber(record, OUTPUT_FIELDS, outputTokens);
  if (maxOutputTokens !== undefined) info.maxOutputTokens = maxOutputTokens;
  const parent = [record['parent'], record['root']].find((name): name is string => typeof name === 'string' && name !== '' && name !== id && name.length <= MAX_MODEL_ID_CHARS);
  if (parent !== undefined) info.parent = parent;
  return info;
}

/**
 * OpenRouter's variant suffixes (`:nitro` fastest provider, `:floor` cheapest, `:online` web search, `:thinking`,
 * `:extended`, `:exacto`, `:free`...): the variant runs the same model, and only the base id is listed.
 */
const VARIANT_SUFFIX = /^([^:]+\/[^:]+):([a-z][a-z0-9-]{0,31})$/;

/**
 * The listing's entry for a model id, with the window it runs: its own, else its base model's (a vLLM LoRA adapter
 * is listed without max_model_len, its `parent` with it), else, for an OpenRouter variant that is not listed, its base
 * id's. Undefined when the listing does not know the model.
 */
export function findListedModel(models: readonly ModelInfo[], id: string): ModelInfo | undefined {
  const exact = models.find((model) => model.id === id);
  if (exact && exact.contextWindow === undefined && exact.parent !== undefined) {
    const base = models.find((model) => model.id === exact.parent);
    if (base?.contextWindow !== undefined) {
      return { ...exact, contextWindow: base.contextWindow, windowDetail: `the window its base model ${base.id} is listed with (max_model_len; a LoRA adapter lists none)` };
    }
  }
  if (exact) return exact;
  const variant = VARIANT_SUFFIX.exec(id);
  const base = variant ? models.find((model) => model.id === variant[1]) : undefined;
  if (!variant || !base) return undefined;
  const { parent: _parent, windowDetail: _detail, ...fields } = base;
  return {
    ...fields,
    id,
    ...(base.contextWindow !== undefined ? { windowDetail: `the window of ${base.id} in the model list (the :${variant[2]} variant is not listed; it runs the same model)` } : {}),
  };
}

/** Parses a whole listing body ({data: [...]}, llama.cpp's {models: [...]}, or a bare array), at most MAX_LISTED_MODELS. */
export function parseModelList(body: unknown): ModelInfo[] {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const entries = Array.isArray(body) ? body : Array.isArray(record['data']) ? record['data'] : record['models'];
  if (!Array.isArray(entries)) return [];
  const seen = new Set<string>();
  const models: ModelInfo[] = [];
  for (const entry of entries.slice(0, MAX_LISTED_MODELS)) {
    const info = parseModelInfo(entry);
    if (info && !seen.has(info.id)) {
      seen.add(info.id);
      models.push(info);
    }
  }
  return models;
}
