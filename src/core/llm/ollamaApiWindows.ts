// The window through Ollama's API (/api/ps, /api/show), as Ollama serves it and as LocalAI imitates it.
import type { FetchJson } from './serverFetch';
import { bestWindow, cappedWindow, entries, optional, RAISE_WINDOW_HINTS, record, windowNumber, MAX_ENTRIES, type DiscoveredWindow } from './serverWindowFacts';

/** The `num_ctx` line of Ollama's `parameters` text (one "name value" per line), or its object form. */
export function ollamaNumCtx(parameters: unknown): number | undefined {
  const asObject = record(parameters);
  if (asObject) return windowNumber(asObject['num_ctx']);
  if (typeof parameters !== 'string') return undefined;
  const match = /^[ \t]*num_ctx[ \t]+(\S{1,32})[ \t]*$/m.exec(parameters.slice(0, 64 * 1024));
  return match ? windowNumber(match[1]) : undefined;
}

/** `model_info["<arch>.context_length"]`, the architecture named by `general.architecture`: the trained length. */
function ollamaContextLength(info: Record<string, unknown> | undefined): number | undefined {
  if (!info) return undefined;
  const arch = info['general.architecture'];
  if (typeof arch === 'string') {
    const named = windowNumber(info[`${arch}.context_length`]);
    if (named !== undefined) return named;
  }
  const key = Object.keys(info).slice(0, MAX_ENTRIES).find((name) => name.endsWith('.context_length') && name !== 'general.context_length');
  return key ? windowNumber(info[key]) : undefined;
}

export const OLLAMA_DEFAULT_WARNING =
  `the model sets no num_ctx and is not loaded, so Ollama will choose its window when it loads it (by the GPUs' total memory: 4k below 24 GiB, 32k up to 48 GiB, 256k above, never more than the trained length and less when the model does not fit; OLLAMA_CONTEXT_LENGTH overrides that) and silently drops the oldest messages of a longer prompt; ${RAISE_WINDOW_HINTS.ollama}`;

/** Whether an Ollama /api/ps entry is this model ("llama3.2" is served as "llama3.2:latest"). */
function sameOllamaModel(entry: Record<string, unknown>, modelId: string): boolean {
  const names = [entry['name'], entry['model']].filter((name): name is string => typeof name === 'string');
  const wanted = modelId.includes(':') ? modelId : `${modelId}:latest`;
  return names.some((name) => name === modelId || name === wanted);
}

/** Ollama's /api/ps: the context length of the loaded model (what it runs now), or undefined when it is not loaded. */
export function parseOllamaPs(body: unknown, modelId: string): DiscoveredWindow | undefined {
  const loaded = entries(record(body)?.['models']).map(record).find((entry) => entry !== undefined && sameOllamaModel(entry, modelId));
  const tokens = windowNumber(loaded?.['context_length']);
  return tokens === undefined ? undefined : { tokens, detail: 'Ollama /api/ps context_length (loaded)' };
}

/**
 * Ollama's defaults when neither the model nor the request sets num_ctx: OLLAMA_CONTEXT_LENGTH when the server was
 * started with it, else by the GPUs' memory (server/routes.go: 4096 below 23 GiB, 32768 below 47 GiB, else 262144),
 * never more than the trained length (server/sched.go), and lower again when the model does not fit.
 */
export const OLLAMA_DEFAULT_WINDOWS = [4096, 32768, 262144] as const;

/** What Ollama's defaults imply for a model trained for `trained` tokens, in words (e.g. "4,096 or 32,768" for 32k). */
export function ollamaImpliedWindows(trained: number): string {
  const implied = [...new Set(OLLAMA_DEFAULT_WINDOWS.map((tokens) => Math.min(tokens, trained)))];
  const words = implied.map((tokens) => tokens.toLocaleString('en-US'));
  return words.length === 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1] ?? ''}`;
}

/**
 * Ollama's /api/show: num_ctx when the model sets it, capped at the trained length (Ollama's llm/server.go lowers a
 * num_ctx above the model's context_length to it before it starts the runner), read again once loaded; else the
 * trained length, until loaded. LocalAI answers the same route with `general.context_length`, the context_size its
 * configuration runs the model with (core/http/endpoints/ollama/models.go): a window, not a trained length.
 */
export function parseOllamaShow(body: unknown): DiscoveredWindow | undefined {
  const show = record(body);
  if (!show) return undefined;
  const info = record(show['model_info']);
  const configured = windowNumber(info?.['general.context_length']);
  if (configured !== undefined) return { tokens: configured, detail: "LocalAI /api/show general.context_length (the context_size of the model's configuration)" };
  const trained = ollamaContextLength(info);
  const numCtx = ollamaNumCtx(show['parameters']);
  if (numCtx !== undefined) return { ...cappedWindow(numCtx, trained, 'Ollama /api/show num_ctx', "the model's trained context_length"), beforeLoad: true };
  if (trained === undefined) return undefined;
  return {
    tokens: trained,
    detail: `Ollama /api/show context_length ${trained.toLocaleString('en-US')} (trained length; unknown until loaded: by Ollama's defaults ${ollamaImpliedWindows(trained)} by GPU memory, or OLLAMA_CONTEXT_LENGTH; learned from /api/ps after the first reply)`,
    untilLoaded: true,
    warning: OLLAMA_DEFAULT_WARNING,
  };
}

/** Asks /api/ps (what is loaded) and /api/show (what the model is set to) in parallel. */
export async function probeOllamaApi(modelId: string, fetchJson: FetchJson, signal: AbortSignal): Promise<DiscoveredWindow | undefined> {
  const [ps, show] = await Promise.all([
    optional(fetchJson('/api/ps', { signal })),
    optional(fetchJson('/api/show', { method: 'POST', body: { model: modelId }, signal })),
  ]);
  return bestWindow([parseOllamaPs(ps, modelId), parseOllamaShow(show)]);
}
