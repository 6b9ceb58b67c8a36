// The servers the guided endpoint setup offers: default URL, flavor, whether a key is needed, and what to say when listing fails.
import { detectFlavor } from './endpointFlags';
import type { ModelErrorKind } from './modelStream';
import type { EndpointFlavor } from '../settings/settings';

export type ServerKindId =
  | 'openai'
  | 'openrouter'
  | 'azure'
  | 'together'
  | 'groq'
  | 'mistral'
  | 'vllm'
  | 'sglang'
  | 'llamacpp'
  | 'lmstudio'
  | 'ollama'
  | 'litellm'
  | 'tgi'
  | 'koboldcpp'
  | 'localai'
  | 'textgen'
  | 'other';

export interface ServerKind {
  id: ServerKindId;
  label: string;
  /** Prefilled in the URL box; empty for "other". */
  defaultUrl: string;
  /** Written to compactionAgent.endpoint.flavor. */
  flavor: EndpointFlavor;
  /** Hosted services need a key; local servers only when started with one. */
  apiKey: 'required' | 'optional';
  /** A local server the person starts themselves: what to check when it does not answer. */
  startHint?: string;
  /** Part of the default URL the person must replace (selected in the URL box). */
  placeholder?: string;
  /** Requests name a deployment the person made, not a listed model (Azure): the model picker asks for its name. */
  deployments?: boolean;
}

export const AZURE_RESOURCE_PLACEHOLDER = 'YOUR-RESOURCE';

export const SERVER_KINDS: readonly ServerKind[] = [
  { id: 'openai', label: 'OpenAI', defaultUrl: 'https://api.openai.com/v1', flavor: 'openai', apiKey: 'required' },
  { id: 'openrouter', label: 'OpenRouter', defaultUrl: 'https://openrouter.ai/api/v1', flavor: 'openrouter', apiKey: 'required' },
  {
    id: 'azure',
    label: 'Azure OpenAI',
    defaultUrl: `https://${AZURE_RESOURCE_PLACEHOLDER}.openai.azure.com/openai/v1`,
    flavor: 'azure',
    apiKey: 'required',
    placeholder: AZURE_RESOURCE_PLACEHOLDER,
    deployments: true,
  },
  { id: 'together', label: 'Together AI', defaultUrl: 'https://api.together.xyz/v1', flavor: 'together', apiKey: 'required' },
  { id: 'groq', label: 'Groq', defaultUrl: 'https://api.groq.com/openai/v1', flavor: 'groq', apiKey: 'required' },
  { id: 'mistral', label: 'Mistral AI', defaultUrl: 'https://api.mistral.ai/v1', flavor: 'mistral', apiKey: 'required' },
  { id: 'vllm', label: 'vLLM', defaultUrl: 'http://localhost:8000/v1', flavor: 'vllm', apiKey: 'optional', startHint: 'Is `vllm serve <model>` running?' },
  { id: 'sglang', label: 'SGLang', defaultUrl: 'http://localhost:30000/v1', flavor: 'sglang', apiKey: 'optional', startHint: 'Is `python -m sglang.launch_server --model-path <model>` running?' },
  { id: 'llamacpp', label: 'llama.cpp server', defaultUrl: 'http://localhost:8080/v1', flavor: 'llamacpp', apiKey: 'optional', startHint: 'Is `llama-server -m <model.gguf>` running?' },
  { id: 'lmstudio', label: 'LM Studio', defaultUrl: 'http://localhost:1234/v1', flavor: 'lmstudio', apiKey: 'optional', startHint: 'Is the LM Studio server started (Developer tab, or `lms server start`)?' },
  { id: 'ollama', label: 'Ollama', defaultUrl: 'http://localhost:11434/v1', flavor: 'ollama', apiKey: 'optional', startHint: 'Is Ollama running (`ollama serve`)?' },
  { id: 'litellm', label: 'LiteLLM proxy', defaultUrl: 'http://localhost:4000/v1', flavor: 'litellm', apiKey: 'optional', startHint: 'Is the proxy running (`litellm --config config.yaml`)?' },
  {
    id: 'tgi',
    label: 'Hugging Face TGI',
    defaultUrl: 'http://localhost:8080/v1',
    flavor: 'tgi',
    apiKey: 'optional',
    startHint: 'Is `text-generation-launcher` (or its container, usually published on port 8080) running?',
  },
  { id: 'koboldcpp', label: 'KoboldCpp', defaultUrl: 'http://localhost:5001/v1', flavor: 'koboldcpp', apiKey: 'optional', startHint: 'Is `koboldcpp --model <model.gguf>` running?' },
  // LocalAI listens on 8080 like llama-server: only the saved flavor tells them apart.
  { id: 'localai', label: 'LocalAI', defaultUrl: 'http://localhost:8080/v1', flavor: 'localai', apiKey: 'optional', startHint: 'Is `local-ai run` (or its container, on port 8080) running?' },
  {
    id: 'textgen',
    label: 'text-generation-webui',
    defaultUrl: 'http://127.0.0.1:5000/v1',
    flavor: 'textgen',
    apiKey: 'optional',
    startHint: 'Is text-generation-webui running with `--api` (its API listens on port 5000)?',
  },
  { id: 'other', label: 'Other OpenAI-compatible server', defaultUrl: '', flavor: 'auto', apiKey: 'optional' },
];

export function serverKind(id: ServerKindId): ServerKind {
  const kind = SERVER_KINDS.find((candidate) => candidate.id === id);
  if (!kind) throw new Error(`unknown server kind ${id}`);
  return kind;
}

/** The kind an existing configuration most likely is (to preselect it); "other" when nothing is set. */
export function kindOfEndpoint(baseUrl: string, flavor: EndpointFlavor): ServerKindId {
  if (baseUrl === '') return 'other';
  const resolved = flavor !== 'auto' ? flavor : detectFlavor(baseUrl);
  return SERVER_KINDS.find((kind) => kind.flavor === resolved)?.id ?? 'other';
}

/** Why a typed base URL cannot be used, or undefined when it can. */
export function checkBaseUrl(text: string, kind?: ServerKind): string | undefined {
  const value = text.trim();
  if (value === '') return 'Enter the server\'s base URL, e.g. http://localhost:11434/v1.';
  if (kind?.placeholder && value.includes(kind.placeholder)) return `Replace ${kind.placeholder} with your own name.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'This is not a URL: it must start with http:// or https://.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL must start with http:// or https://.';
  if (url.username || url.password) return 'Leave credentials out of the URL: the API key is asked for next and kept in secret storage.';
  return undefined;
}

/** The URL as it is saved: trimmed, without a trailing slash. */
export function normalizeBaseUrl(text: string): string {
  return text.trim().replace(/\/+$/, '');
}

/** Whether a key stored for one URL may be sent to another: only to the same scheme, host and port. */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** What to tell the person when the model listing failed, by what went wrong. */
export function listingFailureMessage(kind: ServerKind, baseUrl: string, error: { kind: ModelErrorKind; message: string }): string {
  switch (error.kind) {
    case 'network':
    case 'timeout':
      return `Nothing answered at ${baseUrl}. ${kind.startHint ?? 'Check the host and port.'} (${error.message})`;
    case 'auth':
      return `${baseUrl} refused the API key. Check the key (and that it belongs to this server). (${error.message})`;
    case 'notFound':
      return `${baseUrl} has no model list: check the path (OpenAI-compatible servers usually end in /v1). (${error.message})`;
    case 'invalidResponse':
      return `${baseUrl} answered, but not like an OpenAI-compatible server: check the path (usually ending in /v1). (${error.message})`;
    default:
      return `Listing the models at ${baseUrl} failed. (${error.message})`;
  }
}
