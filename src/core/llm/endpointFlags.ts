// Per-server differences of OpenAI-compatible endpoints as data: detected from the base URL, overridable by settings.
import type { EndpointFlavor, MaxTokensParameter, SystemRole } from '../settings/settings';

/** A concrete server flavor; 'generic' is any other OpenAI-compatible server. */
export type ResolvedFlavor = Exclude<EndpointFlavor, 'auto'> | 'generic';

export interface EndpointFlags {
  flavor: ResolvedFlavor;
  /** Name of the output-limit field in the request body. */
  maxTokensParameter: Exclude<MaxTokensParameter, 'auto'>;
  /** Role used for system prompts. */
  systemRole: Exclude<SystemRole, 'auto'>;
  /** Send `stream_options: {include_usage: true}`; off for servers that reject the field. */
  streamOptions: boolean;
  /** Send OpenRouter's `usage: {include: true}` accounting request. */
  usageAccounting: boolean;
  /** How the key is sent: OpenAI-style bearer token, or Azure's `api-key` header. */
  apiKeyHeader: 'authorization' | 'api-key';
  /** Azure's `api-version` query parameter (absent for Azure's versionless /openai/v1 API). */
  apiVersion?: string;
}

export interface EndpointOverrides {
  flavor?: EndpointFlavor;
  maxTokensParameter?: MaxTokensParameter;
  systemRole?: SystemRole;
}

/** Azure's GA api-version that supports stream_options and max_completion_tokens. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

type FlavorDefaults = Omit<EndpointFlags, 'flavor' | 'apiVersion'>;

const BASE: FlavorDefaults = {
  maxTokensParameter: 'max_tokens',
  systemRole: 'system',
  streamOptions: true,
  usageAccounting: false,
  apiKeyHeader: 'authorization',
};

/** The table: what each server expects. OpenAI deprecated max_tokens and prefers the developer role. */
export const FLAVOR_DEFAULTS: Record<ResolvedFlavor, FlavorDefaults> = {
  openai: { ...BASE, maxTokensParameter: 'max_completion_tokens', systemRole: 'developer' },
  azure: { ...BASE, maxTokensParameter: 'max_completion_tokens', apiKeyHeader: 'api-key' },
  openrouter: { ...BASE, usageAccounting: true },
  together: BASE,
  groq: BASE,
  mistral: BASE,
  vllm: BASE,
  sglang: BASE,
  llamacpp: BASE,
  lmstudio: BASE,
  ollama: BASE,
  litellm: BASE,
  tgi: BASE,
  koboldcpp: BASE,
  localai: BASE,
  textgen: BASE,
  generic: BASE,
};

/** Guesses the server from the URL: well-known hosts, then the default ports of local servers. */
export function detectFlavor(baseUrl: string): ResolvedFlavor {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'generic';
  }
  const host = url.hostname.toLowerCase();
  if (host === 'api.openai.com') return 'openai';
  if (/\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/.test(host)) return 'azure';
  if (host === 'openrouter.ai' || host.endsWith('.openrouter.ai')) return 'openrouter';
  if (/(^|\.)together\.(xyz|ai)$/.test(host)) return 'together';
  if (host === 'api.groq.com') return 'groq';
  if (host === 'api.mistral.ai') return 'mistral';
  if (host.includes('ollama')) return 'ollama';
  if (host.includes('lmstudio')) return 'lmstudio';
  if (host.includes('vllm')) return 'vllm';
  if (host.includes('llamacpp') || host.includes('llama-cpp')) return 'llamacpp';
  if (host.includes('litellm')) return 'litellm';
  if (/(^|[.-])tgi([.-]|$)|text-generation-inference/.test(host)) return 'tgi';
  if (host.includes('sglang')) return 'sglang';
  if (host.includes('kobold')) return 'koboldcpp';
  if (host.includes('localai')) return 'localai';
  // LocalAI also listens on 8080 by default: detected as llama.cpp there, and asked through its Ollama API too.
  const portFlavors: Record<string, ResolvedFlavor> = {
    '4000': 'litellm',
    '11434': 'ollama',
    '1234': 'lmstudio',
    '8000': 'vllm',
    '30000': 'sglang',
    '8080': 'llamacpp',
    '5001': 'koboldcpp',
    '5000': 'textgen',
  };
  return portFlavors[url.port] ?? 'generic';
}

function azureApiVersion(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl);
    const explicit = url.searchParams.get('api-version');
    if (explicit) return explicit;
    // The versionless v1 API rejects api-version; deployment-style URLs require it.
    return /\/openai\/v1\/?$/.test(url.pathname) ? undefined : DEFAULT_AZURE_API_VERSION;
  } catch {
    return DEFAULT_AZURE_API_VERSION;
  }
}

/** Flags for a base URL; each override other than 'auto' wins over what was detected. */
export function detectEndpointFlags(baseUrl: string, overrides: EndpointOverrides = {}): EndpointFlags {
  const flavor: ResolvedFlavor =
    overrides.flavor && overrides.flavor !== 'auto' ? overrides.flavor : detectFlavor(baseUrl);
  const flags: EndpointFlags = { flavor, ...FLAVOR_DEFAULTS[flavor] };
  if (flavor === 'azure') {
    const version = azureApiVersion(baseUrl);
    if (version) flags.apiVersion = version;
  }
  if (overrides.maxTokensParameter && overrides.maxTokensParameter !== 'auto') {
    flags.maxTokensParameter = overrides.maxTokensParameter;
  }
  if (overrides.systemRole && overrides.systemRole !== 'auto') flags.systemRole = overrides.systemRole;
  return flags;
}
