// Asks a server for the context window it runs a model with (Ollama, LocalAI, llama.cpp incl. router mode, KoboldCpp, LM Studio, TGI, LiteLLM, Azure deployments).
import { boundedWindow } from './contextWindow';
import type { ResolvedFlavor } from './endpointFlags';
import { probeKoboldCpp, probeLlamaCpp } from './llamaCppWindows';
import { probeOllamaApi } from './ollamaApiWindows';
import { openAiContextWindow } from './openAiModelWindows';
import type { FetchJson } from './serverFetch';
import { bestWindow, entries, optional, RAISE_WINDOW_HINTS, record, windowNumber, type DiscoveredWindow } from './serverWindowFacts';

/** How long one probe may take: it runs while a chat request waits. */
export const PROBE_TIMEOUT_MS = 3_000;

type Probe = (modelId: string, fetchJson: FetchJson, signal: AbortSignal) => Promise<DiscoveredWindow | undefined>;

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

/**
 * Azure's deployment API, data plane (Azure/azure-rest-api-specs, cognitiveservices/data-plane/AzureOpenAI/authoring:
 * stable 2022-12-01 and preview 2023-03-15-preview): `GET /openai/deployments/<id>` answers {"id": "my-chat",
 * "model": "gpt-4o"}, `GET /openai/deployments` lists them as {"data": [...]}. Newer resources may have retired it.
 */
export const AZURE_DEPLOYMENT_API_VERSION = '2022-12-01';
const AZURE_DEPLOYMENT_API_VERSIONS = [AZURE_DEPLOYMENT_API_VERSION, '2023-03-15-preview'] as const;

/** The model an Azure deployment runs (one deployment, or the list with it, its name in any case), and its window from gpt-tokenizer's OpenAI data. */
export async function parseAzureDeployment(body: unknown, deployment: string): Promise<DiscoveredWindow | undefined> {
  const single = record(body);
  const listed = entries(single?.['data']).map(record).find((entry) => typeof entry?.['id'] === 'string' && entry['id'].toLowerCase() === deployment.toLowerCase());
  const model = (listed ?? single)?.['model'];
  if (typeof model !== 'string' || model === '' || model.length > 256) return undefined;
  const tokens = await openAiContextWindow(model);
  return tokens === undefined ? undefined : { tokens, detail: `Azure deployment ${deployment} runs ${model} (gpt-tokenizer's OpenAI model data)` };
}

/** Asks the deployment and the list at each api-version, below the probe root and beside it (resource URL or …/openai/v1). */
async function probeAzure(modelId: string, fetchJson: FetchJson, signal: AbortSignal): Promise<DiscoveredWindow | undefined> {
  const paths = AZURE_DEPLOYMENT_API_VERSIONS.flatMap((version) => [`/deployments/${encodeURIComponent(modelId)}?api-version=${version}`, `/deployments?api-version=${version}`]);
  const answers = await Promise.all(paths.flatMap((path) => [`/openai${path}`, path]).map((path) => optional(fetchJson(path, { signal }))));
  for (const body of answers) {
    const found = await parseAzureDeployment(body, modelId);
    if (found) return found;
  }
  return undefined;
}

/** The window of the model a reply says answered (Azure names the model behind a deployment in every chunk). */
export async function servedModelWindow(servedModel: string | undefined): Promise<DiscoveredWindow | undefined> {
  if (!servedModel || servedModel.length > 256) return undefined;
  const tokens = await openAiContextWindow(servedModel);
  return tokens === undefined ? undefined : { tokens, detail: `the reply's model ${servedModel} (gpt-tokenizer's OpenAI model data)` };
}

export const LMSTUDIO_NOT_LOADED_WARNING =
  `the model is not loaded, and LM Studio will load it at the context length set for it (often 4,096), not its maximum; ${RAISE_WINDOW_HINTS.lmstudio}`;

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

async function probeLmStudio(modelId: string, fetchJson: FetchJson, signal: AbortSignal): Promise<DiscoveredWindow | undefined> {
  const current = parseLmStudioV1Models(await optional(fetchJson('/api/v1/models', { signal })), modelId);
  if (current && !current.untilLoaded) return current;
  const older = parseLmStudioModel(await optional(fetchJson(`/api/v0/models/${encodeURIComponent(modelId)}`, { signal })));
  return bestWindow([older, current]);
}

const PROBES: Partial<Record<ResolvedFlavor, Probe>> = {
  ollama: probeOllamaApi,
  localai: probeOllamaApi,
  llamacpp: probeLlamaCpp,
  koboldcpp: probeKoboldCpp,
  lmstudio: probeLmStudio,
  tgi: async (_modelId, fetchJson, signal) => parseTgiInfo(await fetchJson('/info', { signal })),
  litellm: async (modelId, fetchJson, signal) =>
    parseLiteLlmModelInfo(await optional(fetchJson('/model/info', { signal })), modelId) ?? parseLiteLlmModelInfo(await optional(fetchJson('/v1/model/info', { signal })), modelId),
  azure: probeAzure,
};

/** The APIs of servers people run themselves, in the order their answers are preferred. */
const LOCAL_APIS: readonly ResolvedFlavor[] = ['ollama', 'llamacpp', 'lmstudio', 'litellm', 'tgi', 'koboldcpp'];

/**
 * Servers that often speak another's API too (LocalAI on llama-server's port 8080 answers Ollama's /api/show, TGI's
 * container takes that port as well, an unknown server may be any of them): when their own API says nothing that
 * runs, every other local API is asked as well.
 */
const ALSO_ASKED: ReadonlySet<ResolvedFlavor> = new Set(['generic', 'ollama', 'localai', 'llamacpp', 'lmstudio', 'litellm', 'tgi', 'koboldcpp', 'textgen']);

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
 * (vLLM, SGLang, OpenRouter, Together, Groq and Mistral put it there: see modelList.ts). Its own API first; then,
 * for a server that may speak others', every other local API in parallel, the first that says what runs winning.
 * Undefined when nothing answers in time. Asked again after the first reply while it only knows a length until
 * loaded, or a length read before loading (that reply loaded the model).
 */
export async function discoverWindow(
  flavor: ResolvedFlavor,
  modelId: string,
  fetchJson: FetchJson,
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<DiscoveredWindow | undefined> {
  const own = PROBES[flavor];
  const first = own ? await runProbe(own, modelId, fetchJson, timeoutMs) : undefined;
  if ((first && !first.untilLoaded) || !ALSO_ASKED.has(flavor)) return first;
  const others = LOCAL_APIS.map((name) => PROBES[name]).filter((probe): probe is Probe => probe !== undefined && probe !== own);
  const answers = await Promise.all(others.map((probe) => runProbe(probe, modelId, fetchJson, timeoutMs)));
  return bestWindow([first, ...answers]);
}

/**
 * Servers that drop the start of a prompt longer than their window instead of refusing it: Ollama (its oldest
 * messages), KoboldCpp (the front of the prompt, gpttype_adapter.cpp) and text-generation-webui (the oldest
 * messages, modules/chat.py).
 */
export function serverTruncates(flavor: ResolvedFlavor): boolean {
  return flavor === 'ollama' || flavor === 'koboldcpp' || flavor === 'textgen';
}

/** How to raise the window of this kind of server, for the message that says it truncated. */
export function raiseWindowHint(flavor: ResolvedFlavor): string {
  return flavor in RAISE_WINDOW_HINTS ? RAISE_WINDOW_HINTS[flavor as keyof typeof RAISE_WINDOW_HINTS] : RAISE_WINDOW_HINTS.generic;
}
