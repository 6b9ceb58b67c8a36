// Images an endpoint refused: later requests carry a line in their place, so one bad picture cannot fail every turn.

/** Error texts that blame the images of a request (OpenAI, vLLM, llama.cpp, Ollama, LM Studio, Anthropic and Gemini proxies). */
const IMAGE_BLAME = /image|vision|multi-?modal|image_url|mime|media type|picture|visual|base64|data url|unsupported content/i;

/** True when a refusal's text names the images as the cause. */
export function blamesImages(message: string): boolean {
  return IMAGE_BLAME.test(message);
}

/** The text that stands in for a refused image on the wire. */
export const REFUSED_IMAGE_NOTE = '[an attached image is not sent: the endpoint refused it earlier]';

/** A content hash as the blob store names it (hex). Anything else read back from storage is ignored. */
const HASH = /^[0-9a-f]{16,128}$/;

/** The stored form: "endpoint\u0000model" to the refused hashes. */
export type StoredRejections = Record<string, string[]>;

/**
 * Refused images by content hash, per endpoint and model (a picture one model refuses another may take).
 * Shared by every client of the extension host, so a session keeps working after its first refusal; the host
 * keeps a copy in its global state (see `restore` and `onChange`), so a restart does not send them again.
 */
export class ImageRejections {
  private readonly refused = new Map<string, Set<string>>();
  private listener: (() => void) | undefined;

  constructor(
    private readonly limit = 10_000,
    private readonly modelLimit = 200,
  ) {}

  forModel(endpoint: string, model: string): ReadonlySet<string> {
    return this.refused.get(`${endpoint}\u0000${model}`) ?? new Set<string>();
  }

  add(endpoint: string, model: string, hashes: Iterable<string>): void {
    const key = `${endpoint}\u0000${model}`;
    const set = this.refused.get(key) ?? new Set<string>();
    const before = set.size;
    for (const hash of hashes) if (set.size < this.limit && HASH.test(hash)) set.add(hash);
    if (set.size === 0 || (set.size === before && this.refused.has(key))) return;
    if (!this.refused.has(key) && this.refused.size >= this.modelLimit) {
      const oldest = this.refused.keys().next().value;
      if (oldest !== undefined) this.refused.delete(oldest);
    }
    this.refused.set(key, set);
    this.listener?.();
  }

  /** Called after every change (one listener: the host's store). */
  onChange(listener: () => void): void {
    this.listener = listener;
  }

  /** What to store. */
  snapshot(): StoredRejections {
    const stored: StoredRejections = {};
    for (const [key, set] of this.refused) stored[key] = [...set];
    return stored;
  }

  /** Adds what was stored; a damaged or hostile value is read as far as it is sound and bounded, never thrown on. */
  restore(value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    let models = 0;
    for (const [key, hashes] of Object.entries(value as Record<string, unknown>)) {
      if (models++ >= this.modelLimit) break;
      const separator = key.indexOf('\u0000');
      if (separator <= 0 || key.length > 4_096 || !Array.isArray(hashes)) continue;
      const set = this.refused.get(key) ?? new Set<string>();
      for (const hash of hashes as unknown[]) {
        if (set.size >= this.limit) break;
        if (typeof hash === 'string' && HASH.test(hash)) set.add(hash);
      }
      if (set.size > 0) this.refused.set(key, set);
    }
  }
}

/** The extension host's one record of refused images. */
export const imageRejections = new ImageRejections();
