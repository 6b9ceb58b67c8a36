// Asks a local server for the context window it runs a model with (Ollama /api/ps, llama.cpp /props, LM Studio /api/v1 and /api/v0).
import { boundedWindow } from './contextWindow';
import type { ResolvedFlavor } from './endpointFlags';

/** Fetches JSON from a path on the configured server's root; rejects on any failure. */
export type FetchJson = (path: string, init?: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal }) => Promise<unknown>;

/** A window a server reported, with where it came from and, when the server may use another, why. */
export interface DiscoveredWindow {
  tokens: number;
  /** E.g. "Ollama /api/ps context_length". */
  detail: string;
  /**
   * Only a trained or maximum length: the model is not loaded, and the server will choose its window when
   * it loads it. Asked again on the next request instead of being kept.
   */
  untilLoaded?: boolean;
  /** Said to the user when the reported window may not be the one in force. */
  warning?: string;
}

/** How long one probe may take: it runs while a chat request waits. */
export const PROBE_TIMEOUT_MS = 3_000;
/** Most bytes of one probe's answer read (a listing of a few thousand models fits); a larger one is refused. */
export const MAX_PROBE_BODY_BYTES = 4 * 1024 * 1024;
/** Entries of a server's model list looked at. */
const MAX_ENTRIES = 10_000;

type Probe = (modelId: string, fetchJson: FetchJson, signal: AbortSignal) => Promise<DiscoveredWindow | undefined>;

/**
 * A window within bounds. Go prints large floats in exponent form (Ollama's `num_ctx 1.048576e+06`), so
 * numeric strings in any JSON number form are read too.
 */
function windowNumber(value: unknown): number | undefined {
  if (typeof value === 'string' && /^\s*\d+(\.\d+)?(e[+-]?\d+)?\s*$/i.test(value)) return boundedWindow(Number(value));
  return boundedWindow(value);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function entries(value: unknown): unknown[] {
  return Array.isArray(value) ? value.slice(0, MAX_ENTRIES) : [];
}

/** The `num_ctx` line of Ollama's `parameters` text (one "name value" per line), or its object form. */
export function ollamaNumCtx(parameters: unknown): number | undefined {
  const asObject = record(parameters);
  if (asObject) return windowNumber(asObject['num_ctx']);
  if (typeof parameters !== 'string') return undefined;
  const match = /^[ \t]*num_ctx[ \t]+(\S{1,32})[ \t]*$/m.exec(parameters.slice(0, 64 * 1024));
  return match ? windowNumber(match[1]) : undefined;
}

/** `model_info["<arch>.context_length"]`, the architecture named by `general.architecture`. */
function ollamaContextLength(modelInfo: unknown): number | undefined {
  const info = record(modelInfo);
  if (!info) return undefined;
  const arch = info['general.architecture'];
  if (typeof arch === 'string') {
    const named = windowNumber(info[`${arch}.context_length`]);
    if (named !== undefined) return named;
  }
  const key = Object.keys(info).slice(0, MAX_ENTRIES).find((name) => name.endsWith('.context_length'));
  return key ? windowNumber(info[key]) : undefined;
}

/** How to raise each local server's window, said whenever it may truncate or did. */
export const RAISE_WINDOW_HINTS = {
  ollama: 'raise it with `PARAMETER num_ctx` in a Modelfile, `OLLAMA_CONTEXT_LENGTH` when starting `ollama serve`, or the context slider of the Ollama app',
  llamacpp: 'raise it with `-c` (`--ctx-size`) when starting `llama-server`',
  lmstudio: 'raise it with the context length in the model\'s load settings in LM Studio (or `lms load --context-length`)',
  generic: 'raise the context length in the server\'s settings',
} as const;

export const OLLAMA_DEFAULT_WARNING =
  `the model sets no num_ctx and is not loaded, so Ollama will choose its window when it loads it (by free GPU memory: 4k below 24 GiB, 32k up to 48 GiB, 256k above; OLLAMA_CONTEXT_LENGTH overrides that) and silently drops the oldest messages of a longer prompt; ${RAISE_WINDOW_HINTS.ollama}`;

export const LMSTUDIO_NOT_LOADED_WARNING =
  `the model is not loaded, and LM Studio will load it at the context length set for it (often 4,096), not its maximum; ${RAISE_WINDOW_HINTS.lmstudio}`;

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

/** Ollama's /api/show: num_ctx when the model sets it (Ollama loads it with that); else the trained length, until loaded. */
export function parseOllamaShow(body: unknown): DiscoveredWindow | undefined {
  const show = record(body);
  if (!show) return undefined;
  const numCtx = ollamaNumCtx(show['parameters']);
  if (numCtx !== undefined) return { tokens: numCtx, detail: 'Ollama /api/show num_ctx' };
  const length = ollamaContextLength(show['model_info']);
  if (length === undefined) return undefined;
  return { tokens: length, detail: 'Ollama /api/show context_length (trained length; unknown until loaded)', untilLoaded: true, warning: OLLAMA_DEFAULT_WARNING };
}

/** llama.cpp's /props: the context of a slot as the server was started (`-c`). */
export function parseLlamaCppProps(body: unknown): DiscoveredWindow | undefined {
  const props = record(body);
  const tokens = windowNumber(record(props?.['default_generation_settings'])?.['n_ctx']) ?? windowNumber(props?.['n_ctx']);
  return tokens === undefined ? undefined : { tokens, detail: 'llama.cpp /props n_ctx' };
}

/** LM Studio's /api/v1/models (0.4+): a loaded instance's context_length, else the maximum until it loads. */
export function parseLmStudioV1Models(body: unknown, modelId: string): DiscoveredWindow | undefined {
  for (const raw of entries(record(body)?.['models'])) {
    const model = record(raw);
    if (!model) continue;
    const instances = entries(model['loaded_instances']).map(record);
    const instance = instances.find((candidate) => candidate?.['id'] === modelId) ?? (model['key'] === modelId ? instances[0] : undefined);
    if (!instance && model['key'] !== modelId) continue;
    const loaded = windowNumber(record(instance?.['config'])?.['context_length']);
    if (loaded !== undefined) return { tokens: loaded, detail: 'LM Studio /api/v1/models loaded context_length' };
    const max = windowNumber(model['max_context_length']);
    if (max !== undefined) return { tokens: max, detail: 'LM Studio max_context_length (not loaded; unknown until loaded)', untilLoaded: true, warning: LMSTUDIO_NOT_LOADED_WARNING };
  }
  return undefined;
}

/** LM Studio's /api/v0/models/<id> (0.3.6+): loaded_context_length while loaded, else the maximum until it loads. */
export function parseLmStudioModel(body: unknown): DiscoveredWindow | undefined {
  const model = record(body);
  const loaded = model?.['state'] === 'not-loaded' ? undefined : windowNumber(model?.['loaded_context_length']);
  if (loaded !== undefined) return { tokens: loaded, detail: 'LM Studio /api/v0 loaded_context_length' };
  const max = windowNumber(model?.['max_context_length']);
  return max === undefined ? undefined : { tokens: max, detail: 'LM Studio max_context_length (not loaded; unknown until loaded)', untilLoaded: true, warning: LMSTUDIO_NOT_LOADED_WARNING };
}

async function optional<T>(work: Promise<T>): Promise<T | undefined> {
  return work.catch(() => undefined);
}

/** The first answer that says what runs; else the first that only knows a length until loaded. */
function best(answers: ReadonlyArray<DiscoveredWindow | undefined>): DiscoveredWindow | undefined {
  return answers.find((answer) => answer !== undefined && !answer.untilLoaded) ?? answers.find((answer) => answer !== undefined);
}

const PROBES: Partial<Record<ResolvedFlavor, Probe>> = {
  ollama: async (modelId, fetchJson, signal) => {
    const [ps, show] = await Promise.all([
      optional(fetchJson('/api/ps', { signal })),
      optional(fetchJson('/api/show', { method: 'POST', body: { model: modelId }, signal })),
    ]);
    return best([parseOllamaPs(ps, modelId), parseOllamaShow(show)]);
  },
  llamacpp: async (_modelId, fetchJson, signal) => parseLlamaCppProps(await fetchJson('/props', { signal })),
  lmstudio: async (modelId, fetchJson, signal) => {
    const current = parseLmStudioV1Models(await optional(fetchJson('/api/v1/models', { signal })), modelId);
    if (current && !current.untilLoaded) return current;
    const older = parseLmStudioModel(await optional(fetchJson(`/api/v0/models/${encodeURIComponent(modelId)}`, { signal })));
    return best([older, current]);
  },
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
  return best(answers);
}

/** Servers that drop the oldest messages of a prompt longer than their window instead of refusing it. */
export function serverTruncates(flavor: ResolvedFlavor): boolean {
  return flavor === 'ollama';
}

/** How to raise the window of this kind of server, for the message that says it truncated. */
export function raiseWindowHint(flavor: ResolvedFlavor): string {
  return flavor === 'ollama' || flavor === 'llamacpp' || flavor === 'lmstudio' ? RAISE_WINDOW_HINTS[flavor] : RAISE_WINDOW_HINTS.generic;
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

/** Reads a body up to `limit` bytes; more than that rejects (a probe's answer is small). */
async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`the answer is larger than ${limit} bytes`);
  }
  return readStream(response.body, limit);
}

async function readStream(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the answer is larger than ${limit} bytes`);
    }
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * A FetchJson over `fetch` that only ever reaches the configured server: the path is appended to its root,
 * a result on another origin is refused, redirects are not followed, a non-2xx answer rejects, and an
 * answer over MAX_PROBE_BODY_BYTES is refused unread.
 */
export function serverFetchJson(baseUrl: string, headers: Record<string, string>, fetchImpl: typeof fetch = fetch, maxBytes = MAX_PROBE_BODY_BYTES): FetchJson | undefined {
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
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    const body: unknown = JSON.parse(await readBounded(response, maxBytes));
    return body;
  };
}
