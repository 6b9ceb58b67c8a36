// What a server's own API says of a model's window, read safely: bounded numbers, capped lengths, and how to raise it.
import { boundedWindow } from './contextWindow';

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
  /**
   * What the server will load the model with, read while it is not loaded (Ollama's num_ctx, a llama.cpp router's
   * -c): used, and read again after the first reply, since loading may still lower it (memory, a clamp).
   */
  beforeLoad?: boolean;
  /** Said to the user when the reported window may not be the one in force. */
  warning?: string;
}

/** Entries of a server's model list looked at. */
export const MAX_ENTRIES = 10_000;

/**
 * A window within bounds. Go prints large floats in exponent form (Ollama's `num_ctx 1.048576e+06`), so
 * numeric strings in any JSON number form are read too.
 */
export function windowNumber(value: unknown): number | undefined {
  if (typeof value === 'string' && /^\s*\d+(\.\d+)?(e[+-]?\d+)?\s*$/i.test(value)) return boundedWindow(Number(value));
  return boundedWindow(value);
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function entries(value: unknown): unknown[] {
  return Array.isArray(value) ? value.slice(0, MAX_ENTRIES) : [];
}

/**
 * A configured length on a server that caps it at another length it reports (Ollama lowers num_ctx to the model's
 * trained context_length before it starts the runner): the window is the smaller one, and the detail says which
 * cap won. Never a window larger than the server runs. (llama.cpp does not cap: it runs an n_ctx above n_ctx_train
 * with a warning only, so its n_ctx is what it runs.)
 */
export function cappedWindow(configured: number, cap: number | undefined, detail: string, capLabel: string): { tokens: number; detail: string } {
  if (cap === undefined || configured <= cap) return { tokens: configured, detail };
  const words = (tokens: number): string => tokens.toLocaleString('en-US');
  return { tokens: cap, detail: `${detail} ${words(configured)}, capped by the server at ${capLabel} ${words(cap)}` };
}

/** How to raise each local server's window, said whenever it may truncate or did. */
export const RAISE_WINDOW_HINTS = {
  ollama: 'raise it with `PARAMETER num_ctx` in a Modelfile, `OLLAMA_CONTEXT_LENGTH` when starting `ollama serve`, or the context slider of the Ollama app',
  llamacpp: 'raise it with `-c` (`--ctx-size`) when starting `llama-server`',
  lmstudio: 'raise it with the context length in the model\'s load settings in LM Studio (or `lms load --context-length`)',
  tgi: 'raise `--max-input-tokens` and `--max-total-tokens` when starting TGI',
  koboldcpp: 'raise it with `--contextsize` when starting KoboldCpp',
  localai: 'raise `context_size` in the model\'s YAML configuration in LocalAI',
  textgen: 'raise the model\'s context length (`--ctx-size`) and the "Truncate the prompt up to this length" parameter in text-generation-webui',
  generic: 'raise the context length in the server\'s settings',
} as const;

/** A server API call that may fail: its failure is "no answer", never an exception. */
export async function optional<T>(work: Promise<T>): Promise<T | undefined> {
  return work.catch(() => undefined);
}

/** The first answer that says what runs; else the first that only knows a length until loaded. */
export function bestWindow(answers: ReadonlyArray<DiscoveredWindow | undefined>): DiscoveredWindow | undefined {
  return answers.find((answer) => answer !== undefined && !answer.untilLoaded) ?? answers.find((answer) => answer !== undefined);
}
