// Asks a server for the context window it runs a model with (Ollama, llama.cpp incl. router mode, LM Studio, TGI, LiteLLM, Azure deployments).
import { boundedWindow } from './contextWindow';
import type { ResolvedFlavor } from './endpointFlags';
import { openAiContextWindow } from './openAiModelWindows';
import type { FetchJson } from './serverFetch';

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
  tgi: 'raise `--max-input-tokens` and `--max-total-tokens` when starting TGI',
  generic: 'raise the context length in the server\'s settings',
} as const;

export const OLLAMA_DEFAULT_WARNING =
  `the model sets no num_ctx and is not loaded, so Ollama will choose its window when it loads it (by the GPUs' total memory: 4k below 24 GiB, 32k up to 48 GiB, 256k above, never more than the trained length and less when the model does not fit; OLLAMA_CONTEXT_LENGTH overrides that) and silently drops the oldest messages of a longer prompt; ${RAISE_WINDOW_HINTS.ollama}`;

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

/** Ollama's /api/show: num_ctx when the model sets it (Ollama loads it with that); else the trained length, until loaded. */
export function parseOllamaShow(body: unknown): DiscoveredWindow | undefined {
  const show = record(body);
  if (!show) return undefined;
  const numCtx = ollamaNumCtx(show['parameters']);
  if (numCtx !== undefined) return { tokens: numCtx, detail: 'Ollama /api/show num_ctx' };
  const length = ollamaContextLength(show['model_info']);
  if (length === undefined) return undefined;
  return {
    tokens: length,
    detail: `Ollama /api/show context_length ${length.toLocaleString('en-US')} (trained length; unknown until loaded: by Ollama's defaults ${ollamaImpliedWindows(length)} by GPU memory, or OLLAMA_CONTEXT_LENGTH; learned from /api/ps after the first reply)`,
    untilLoaded: true,
    warning: OLLAMA_DEFAULT_WARNING,
  };
}

/** llama.cpp's /props: the context of a slot as the server was started (`-c`); a router answers n_ctx 0 (no model). */
export function parseLlamaCppProps(body: unknown, detail = 'llama.cpp /props n_ctx'): DiscoveredWindow | undefined {
  const props = record(body);
  const tokens = windowNumber(record(props?.['default_generation_settings'])?.['n_ctx']) ?? windowNumber(props?.['n_ctx']);
  return tokens === undefined ? undefined : { tokens, detail };
}

/** llama.cpp's /slots: every slot's n_ctx (the same for all); the first one read. */
export function parseLlamaCppSlots(body: unknown): DiscoveredWindow | undefined {
  const first = record(entries(body)[0]);
  const tokens = windowNumber(first?.['n_ctx']);
  return tokens === undefined ? undefined : { tokens, detail: 'llama.cpp router /slots n_ctx' };
}

/** The `-c` / `--ctx-size` in the arguments a llama.cpp router starts a model's instance with. */
function ctxSizeArgument(args: unknown): number | undefined {
  const list = entries(args).slice(0, 1000);
  for (let index = 0; index < list.length; index++) {
    const arg = list[index];
    if (typeof arg !== 'string') continue;
    const joined = /^--ctx-size=(\S{1,32})$/.exec(arg);
    if (joined) return windowNumber(joined[1]);
    if (arg === '-c' || arg === '--ctx-size' || arg === '-ctx') return windowNumber(list[index + 1]);
  }
  return undefined;
}

/** A llama.cpp router's /models entry for a model (by id or alias): its status and the arguments it loads it with. */
export function llamaCppRouterEntry(body: unknown, modelId: string): { status: string; ctxSize?: number } | undefined {
  for (const raw of entries(record(body)?.['data'])) {
    const model = record(raw);
    const status = record(model?.['status']);
    if (!model || !status) continue;
    const aliases = entries(model['aliases']);
    if (model['id'] !== modelId && !aliases.includes(modelId)) continue;
    const value = typeof status['value'] === 'string' ? status['value'] : 'unknown';
    const ctxSize = ctxSizeArgument(status['args']);
    return ctxSize === undefined ? { status: value } : { status: value, ctxSize };
  }
  return undefined;
}

/**
 * llama.cpp: `/props?model=…&autoload=false` (a single-model server ignores the query; a router answers for that
 * model, and refuses rather than loads one that is not), else the router's `/models` entry: a loaded model's
 * `/slots`, or the `-c` its instance is started with.
 */
async function probeLlamaCpp(modelId: string, fetchJson: FetchJson, signal: AbortSignal): Promise<DiscoveredWindow | undefined> {
  const query = `?model=${encodeURIComponent(modelId)}&autoload=false`;
  const [props, models] = await Promise.all([optional(fetchJson(`/props${query}`, { signal })), optional(fetchJson('/models', { signal }))]);
  const entry = llamaCppRouterEntry(models, modelId);
  const fromProps = parseLlamaCppProps(props, entry ? 'llama.cpp router /props?model= n_ctx' : 'llama.cpp /props n_ctx');
  if (fromProps) return fromProps;
  if (!entry) return undefined;
  if (entry.status === 'loaded') {
    const slots = parseLlamaCppSlots(await optional(fetchJson(`/slots${query}`, { signal })));
    if (slots) return slots;
  }
  if (entry.ctxSize !== undefined) return { tokens: entry.ctxSize, detail: `llama.cpp router /models status.args --ctx-size (the model is ${entry.status}; its instance starts with it)` };
  return undefined;
}

/** What answers on llama-server's usual port 8080 may be TGI's container: its /info, when llama.cpp's routes say nothing. */
async function probeLlamaCppOrTgi(modelId: string, fetchJson: FetchJson, signal: AbortSignal): Promise<DiscoveredWindow | undefined> {
  return (await probeLlamaCpp(modelId, fetchJson, signal)) ?? parseTgiInfo(await optional(fetchJson('/info', { signal })));
}

/**
 * Hugging Face TGI's /info: prompt + reply must fit max_total_tokens and the prompt must stay below max_input_tokens
 * (max_input_length before 2.0). The window is max_total_tokens unless the input limit is set lower, then the input
 * limit + 1, so a prompt the budget lets through is never refused (the reply's room comes out of it).
 */
export function parseTgiInfo(body: unknown): DiscoveredWindow | undefined {
  const info = record(body);
  const total = windowNumber(info?.['max_total_tokens']);
  if (!info || total === undefined || typeof info['model_id'] !== 'string') return undefined;
  const input = windowNumber(info['max_input_tokens']) ?? windowNumber(info['max_input_length']);
  if (input === undefined || input >= total - 1) return { tokens: total, detail: 'TGI /info max_total_tokens' };
  const tokens = boundedWindow(input + 1) ?? total;
  return { tokens, detail: `TGI /info max_input_tokens ${input.toLocaleString('en-US')} + 1 (it refuses longer prompts; max_total_tokens ${total.toLocaleString('en-US')})` };
}

/**
 * LiteLLM's /model/info: every deployment of the model name with its `model_info.max_input_tokens` (from LiteLLM's
 * model map or the config's model_info). Several deployments of one name: the smallest, since any may answer.
 */
export function parseLiteLlmModelInfo(body: unknown, modelId: string): DiscoveredWindow | undefined {
  let smallest: number | undefined;
  for (const raw of entries(record(body)?.['data'])) {
    const deployment = record(raw);
    if (deployment?.['model_name'] !== modelId) continue;
    const tokens = windowNumber(record(deployment['model_info'])?.['max_input_tokens']);
    if (tokens !== undefined) smallest = Math.min(smallest ?? tokens, tokens);
  }
  return smallest === undefined ? undefined : { tokens: smallest, detail: "LiteLLM /model/info max_input_tokens (LiteLLM's model map or config; the upstream server decides)" };
}

/** Azure's deployment API (api-version 2022-12-01): the model a deployment runs, e.g. {"id": "my-chat", "model": "gpt-4o"}. */
export const AZURE_DEPLOYMENT_API_VERSION = '2022-12-01';

/** The model an Azure deployment runs, and its window from gpt-tokenizer's OpenAI data. */
export async function parseAzureDeployment(body: unknown, deployment: string): Promise<DiscoveredWindow | undefined> {
  const model = record(body)?.['model'];
  if (typeof model !== 'string' || model === '' || model.length > 256) return undefined;
  const tokens = await openAiContextWindow(model);
  return tokens === undefined ? undefined : { tokens, detail: `Azure deployment ${deployment} runs ${model} (gpt-tokenizer's OpenAI model data)` };
}

/** The window of the model a reply says answered (Azure names the model behind a deployment in every chunk). */
export async function servedModelWindow(servedModel: string | undefined): Promise<DiscoveredWindow | undefined> {
  if (!servedModel || servedModel.length > 256) return undefined;
  const tokens = await openAiContextWindow(servedModel);
  return tokens === undefined ? undefined : { tokens, detail: `the reply's model ${servedModel} (gpt-tokenizer's OpenAI model data)` };
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
  llamacpp: probeLlamaCppOrTgi,
  lmstudio: async (modelId, fetchJson, signal) => {
    const current = parseLmStudioV1Models(await optional(fetchJson('/api/v1/models', { signal })), modelId);
    if (current && !current.untilLoaded) return current;
    const older = parseLmStudioModel(await optional(fetchJson(`/api/v0/models/${encodeURIComponent(modelId)}`, { signal })));
    return best([older, current]);
  },
  tgi: async (_modelId, fetchJson, signal) => parseTgiInfo(await fetchJson('/info', { signal })),
  litellm: async (modelId, fetchJson, signal) =>
    parseLiteLlmModelInfo(await optional(fetchJson('/model/info', { signal })), modelId) ?? parseLiteLlmModelInfo(await optional(fetchJson('/v1/model/info', { signal })), modelId),
  azure: async (modelId, fetchJson, signal) => {
    // The base URL is the resource (…/openai/deployments/<id> is built from it) or its versionless …/openai/v1.
    const path = `/deployments/${encodeURIComponent(modelId)}?api-version=${AZURE_DEPLOYMENT_API_VERSION}`;
    const [below, beside] = await Promise.all([optional(fetchJson(`/openai${path}`, { signal })), optional(fetchJson(path, { signal }))]);
    return (await parseAzureDeployment(below, modelId)) ?? (await parseAzureDeployment(beside, modelId));
  },
};

/** An unknown server may be any of them: asked in parallel, the first in this order that answers wins. */
/** (TGI's /info is asked by the llama.cpp probe, whose port TGI's container usually takes.) */
const GENERIC_ORDER: readonly ResolvedFlavor[] = ['ollama', 'llamacpp', 'lmstudio', 'litellm'];

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
 * Asked again after the first reply while it only knows a length until loaded (that reply loaded the model).
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
  return flavor === 'ollama' || flavor === 'llamacpp' || flavor === 'lmstudio' || flavor === 'tgi' ? RAISE_WINDOW_HINTS[flavor] : RAISE_WINDOW_HINTS.generic;
}
