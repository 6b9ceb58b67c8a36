// Asks a local server for a model's real context window (Ollama /api/show, llama.cpp /props, LM Studio /api/v0).
import type { ResolvedFlavor } from './endpointFlags';

/** Fetches JSON from a path on the configured server's root; rejects on any failure. */
export type FetchJson = (path: string, init?: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal }) => Promise<unknown>;

/** A window a server reported, with where it came from and, when the server may use less, why. */
export interface DiscoveredWindow {
  tokens: number;
  /** E.g. "Ollama /api/show num_ctx". */
  detail: string;
  /** Said to the user when the reported window may not be the one in force. */
  warning?: string;
}

/** How long one probe may take: it runs while a chat request waits. */
export const PROBE_TIMEOUT_MS = 3_000;

type Probe = (modelId: string, fetchJson: FetchJson, signal: AbortSignal) => Promise<DiscoveredWindow | undefined>;

function positive(value: unknown): number | undefined {
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return positive(Number(value));
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The `num_ctx` line of Ollama's `parameters` text (one "name value" per line), or its object form. */
function ollamaNumCtx(parameters: unknown): number | undefined {
  const asObject = record(parameters);
  if (asObject) return positive(asObject['num_ctx']);
  if (typeof parameters !== 'string') return undefined;
  const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
  return match ? positive(Number(match[1])) : undefined;
}

/** `model_info["<arch>.context_length"]`, the architecture named by `general.architecture`. */
function ollamaContextLength(modelInfo: unknown): number | undefined {
  const info = record(modelInfo);
  if (!info) return undefined;
  const arch = info['general.architecture'];
  if (typeof arch === 'string') {
    const named = positive(info[`${arch}.context_length`]);
    if (named !== undefined) return named;
  }
  const key = Object.keys(info).find((name) => name.endsWith('.context_length'));
  return key ? positive(info[key]) : undefined;
}

export const OLLAMA_TRUNCATION_WARNING =
  'the model sets no num_ctx, so Ollama may truncate prompts at its own default (2048 or 4096 tokens, or OLLAMA_CONTEXT_LENGTH); set num_ctx in a Modelfile or compactionAgent.context.windowTokens';

/** Ollama truncates at num_ctx: that is the window in force when set; else the model's trained length, with a warning. */
export function parseOllamaShow(body: unknown): DiscoveredWindow | undefined {
  const show = record(body);
  if (!show) return undefined;
  const numCtx = ollamaNumCtx(show['parameters']);
  if (numCtx !== undefined) return { tokens: numCtx, detail: 'Ollama /api/show num_ctx' };
  const length = ollamaContextLength(show['model_info']);
  if (length === undefined) return undefined;
  return { tokens: length, detail: 'Ollama /api/show context_length', warning: OLLAMA_TRUNCATION_WARNING };
}

/** llama.cpp's /props: the context of a slot as the server was started (`-c`). */
export function parseLlamaCppProps(body: unknown): DiscoveredWindow | undefined {
  const props = record(body);
  const tokens = positive(record(props?.['default_generation_settings'])?.['n_ctx']) ?? positive(props?.['n_ctx']);
  return tokens === undefined ? undefined : { tokens, detail: 'llama.cpp /props n_ctx' };
}

/** LM Studio's /api/v0/models/<id>: the context the model was loaded with, else the most it supports. */
export function parseLmStudioModel(body: unknown): DiscoveredWindow | undefined {
  const model = record(body);
  const loaded = positive(model?.['loaded_context_length']);
  if (loaded !== undefined) return { tokens: loaded, detail: 'LM Studio loaded_context_length' };
  const max = positive(model?.['max_context_length']);
  return max === undefined ? undefined : { tokens: max, detail: 'LM Studio max_context_length' };
}

const PROBES: Partial<Record<ResolvedFlavor, Probe>> = {
  ollama: async (modelId, fetchJson, signal) => parseOllamaShow(await fetchJson('/api/show', { method: 'POST', body: { model: modelId }, signal })),
  llamacpp: async (_modelId, fetchJson, signal) => parseLlamaCppProps(await fetchJson('/props', { signal })),
  lmstudio: async (modelId, fetchJson, signal) => parseLmStudioModel(await fetchJson(`/api/v0/models/${encodeURIComponent(modelId)}`, { signal })),
};

/** An unknown server may be any of them: asked in parallel, the first in this order that answers wins. */
const GENERIC_ORDER: readonly ResolvedFlavor[] = ['ollama', 'llamacpp', 'lmstudio'];

/** Runs one probe within the timeout; any failure or garbage is undefined, never an exception. */
async function runProbe(probe: Probe, modelId: string, fetchJson: FetchJson, timeoutMs: number): Promise<DiscoveredWindow | undefined> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve(undefined);
    }, timeoutMs);
  });
  try {
    return await Promise.race([probe(modelId, fetchJson, abort.signal).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The window the server says it runs the model with, for the flavours whose /models listing does not say
 * (vLLM and OpenRouter put it there: see modelList.ts). Undefined when the server does not answer in time.
 */
export async function discoverWindow(
  flavor: ResolvedFlavor,
  modelId: string,
  fetchJson: FetchJson,
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<DiscoveredWindow | undefined> {
  const probe = PROBES[flavor];
  if (probe) return runProbe(probe, modelId, fetchJson, timeoutMs);
  if (flavor !== 'generic') return undefined;
  const answers = await Promise.all(GENERIC_ORDER.map((name) => {
    const candidate = PROBES[name];
    return candidate ? runProbe(candidate, modelId, fetchJson, timeoutMs) : Promise.resolve(undefined);
  }));
  return answers.find((answer) => answer !== undefined);
}

/** The server's root: the base URL without its OpenAI-compatible `/v1` suffix (where Ollama and others serve their own API). */
export function serverRoot(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl);
    url.search = '';
    url.hash = '';
    url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
    return url.toString().replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/**
 * A FetchJson over `fetch` that only ever reaches the configured server: the path is appended to its root,
 * a result on another origin is refused, redirects are not followed, and a non-2xx answer rejects.
 */
export function serverFetchJson(baseUrl: string, headers: Record<string, string>, fetchImpl: typeof fetch = fetch): FetchJson | undefined {
  const root = serverRoot(baseUrl);
  if (!root) return undefined;
  const origin = new URL(root).origin;
  return async (path, init) => {
    if (!path.startsWith('/')) throw new Error(`Not a server path: ${path}`);
    const url = new URL(root + path);
    if (url.origin !== origin) throw new Error('Refusing to send a probe to another server');
    const response = await fetchImpl(url, {
      method: init?.method ?? 'GET',
      headers: { ...headers, ...(init?.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      redirect: 'manual',
      ...(init?.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body: unknown = await response.json();
    return body;
  };
}
