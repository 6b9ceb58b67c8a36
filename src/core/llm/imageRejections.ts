// Images an endpoint refused: later requests carry a line in their place, so one bad picture cannot fail every turn.

/** Error texts that blame the images of a request (OpenAI, vLLM, llama.cpp, Ollama, LM Studio, Anthropic and Gemini proxies). */
const IMAGE_BLAME = /image|vision|multi-?modal|image_url|mime|media type|picture|visual|base64|data url|unsupported content/i;

/** True when a refusal's text names the images as the cause. */
export function blamesImages(message: string): boolean {
  return IMAGE_BLAME.test(message);
}

/** The text that stands in for a refused image on the wire. */
export const REFUSED_IMAGE_NOTE = '[an attached image is not sent: the endpoint refused it earlier]';

/**
 * Refused images by content hash, per endpoint and model (a picture one model refuses another may take).
 * Shared by every client of the extension host, so a session keeps working after its first refusal.
 */
export class ImageRejections {
  private readonly refused = new Map<string, Set<string>>();

  constructor(private readonly limit = 10_000) {}

  forModel(endpoint: string, model: string): ReadonlySet<string> {
    return this.refused.get(`${endpoint}\u0000${model}`) ?? new Set<string>();
  }

  add(endpoint: string, model: string, hashes: Iterable<string>): void {
    const key = `${endpoint}\u0000${model}`;
    const set = this.refused.get(key) ?? new Set<string>();
    for (const hash of hashes) if (set.size < this.limit) set.add(hash);
    this.refused.set(key, set);
  }
}

/** The extension host's one record of refused images. */
export const imageRejections = new ImageRejections();
