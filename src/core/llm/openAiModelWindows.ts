// The context windows of OpenAI's models, from gpt-tokenizer's model data (loaded lazily, on first lookup).

/**
 * Used when gpt-tokenizer's model data cannot be loaded. Source: gpt-tokenizer 4.0.0 `models.gen`
 * (`context_window` of each spec), which copies OpenAI's model pages.
 */
const FALLBACK_WINDOWS: Readonly<Record<string, number>> = {
  'gpt-5': 400_000,
  'gpt-5-mini': 400_000,
  'gpt-5-nano': 400_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.1-mini': 1_047_576,
  'gpt-4.1-nano': 1_047_576,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  'gpt-4-turbo': 128_000,
  'gpt-4': 8_192,
  'gpt-3.5-turbo': 16_385,
  o1: 200_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o4-mini': 200_000,
};

let loading: Promise<ReadonlyMap<string, number>> | undefined;

function windowsOf(specs: Record<string, unknown>): ReadonlyMap<string, number> {
  const windows = new Map<string, number>();
  for (const [name, spec] of Object.entries(specs)) {
    const window = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>)['context_window'] : undefined;
    if (typeof window === 'number' && Number.isFinite(window) && window > 0) windows.set(name, Math.floor(window));
  }
  return windows;
}

/** The package's `models` entry point fails to load in CommonJS; `models.gen` holds the same specs and loads. */
async function loadWindows(): Promise<ReadonlyMap<string, number>> {
  try {
    const specs = (await import('gpt-tokenizer/models.gen')) as unknown as Record<string, unknown>;
    const windows = windowsOf(specs);
    if (windows.size > 0) return windows;
  } catch {
    // The fallback table below answers instead.
  }
  return new Map(Object.entries(FALLBACK_WINDOWS));
}

/**
 * Candidate names for an id: as given, without a provider prefix ("openai/gpt-4o"), in OpenAI's spelling of Azure's
 * model names ("gpt-35-turbo"), without a date suffix (OpenAI's "-2024-08-06", Azure's "-0613").
 */
function candidates(modelId: string): string[] {
  const bare = modelId.replace(/^(?:openai|azure)\//, '').replace(/^gpt-35(?=-|$)/, 'gpt-3.5');
  return [modelId, bare, bare.replace(/-\d{4}-\d{2}-\d{2}$/, ''), bare.replace(/-\d{4}$/, '')];
}

/** The window of an OpenAI model id, or undefined for any other model. */
export async function openAiContextWindow(modelId: string): Promise<number | undefined> {
  loading ??= loadWindows();
  const windows = await loading;
  for (const name of candidates(modelId)) {
    const window = windows.get(name);
    if (window !== undefined) return window;
  }
  return undefined;
}
