// The window through llama.cpp's server API (single model and router mode) and KoboldCpp's, which is built on it.
import type { FetchJson } from './serverFetch';
import { entries, optional, record, windowNumber, type DiscoveredWindow } from './serverWindowFacts';

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
 * `/slots`, or the `-c` its instance is started with (read again after the first reply, which loads it). A server
 * that is no router and refuses the query string (a strict proxy in front of it) is asked the plain `/props`.
 */
export async function probeLlamaCpp(modelId: string, fetchJson: FetchJson, signal: AbortSignal): Promise<DiscoveredWindow | undefined> {
  const query = `?model=${encodeURIComponent(modelId)}&autoload=false`;
  const [props, models] = await Promise.all([optional(fetchJson(`/props${query}`, { signal })), optional(fetchJson('/models', { signal }))]);
  const entry = llamaCppRouterEntry(models, modelId);
  const fromProps = parseLlamaCppProps(props, entry ? 'llama.cpp router /props?model= n_ctx' : 'llama.cpp /props n_ctx');
  if (fromProps) return fromProps;
  if (!entry) return props === undefined ? parseLlamaCppProps(await optional(fetchJson('/props', { signal }))) : undefined;
  if (entry.status === 'loaded') {
    const slots = parseLlamaCppSlots(await optional(fetchJson(`/slots${query}`, { signal })));
    if (slots) return slots;
  }
  if (entry.ctxSize !== undefined) {
    const detail = `llama.cpp router /models status.args --ctx-size (the model is ${entry.status}; its instance starts with it)`;
    return entry.status === 'loaded' ? { tokens: entry.ctxSize, detail } : { tokens: entry.ctxSize, detail, beforeLoad: true };
  }
  return undefined;
}

/**
 * KoboldCpp's `/api/extra/true_max_context_length`: {"value": N}, the `--contextsize` it was started with (its
 * koboldcpp.py; the `/api/v1/config/max_context_length` beside it is capped for the AI Horde and not asked).
 */
export function parseKoboldCppContext(body: unknown): DiscoveredWindow | undefined {
  const tokens = windowNumber(record(body)?.['value']);
  return tokens === undefined ? undefined : { tokens, detail: 'KoboldCpp /api/extra/true_max_context_length (its --contextsize)' };
}

export async function probeKoboldCpp(_modelId: string, fetchJson: FetchJson, signal: AbortSignal): Promise<DiscoveredWindow | undefined> {
  return parseKoboldCppContext(await fetchJson('/api/extra/true_max_context_length', { signal }));
}
