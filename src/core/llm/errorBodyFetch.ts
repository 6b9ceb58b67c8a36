// Wraps fetch for the SDK: bounded error bodies, at most a few same-server redirects, and a stream's last event kept.

/** Most of an error body read (an endless 500 once grew to 6 GB); the rest is cancelled. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Longest wait for an error body before it is cut off. */
export const ERROR_BODY_TIMEOUT_MS = 5_000;
/** Most of a successful non-streamed GET read (the model list: OpenRouter's is a few MB); a larger one is refused. */
export const MAX_LISTING_BYTES = 16 * 1024 * 1024;
/** Redirects followed per request, and only to the same server (the request carries the API key). */
export const MAX_REDIRECTS = 5;

/** A redirect that is not followed: too many, or to another server. Never retried. */
export class RedirectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedirectError';
  }
}

/** Reads at most `limit` bytes of a body within `timeoutMs`, then cancels the rest. */
async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number, timeoutMs: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    while (size < limit) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === 'late' || next.done) break;
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } catch {
    // A body that fails mid-read still yields what arrived.
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset >= bytes.length) break;
  }
  const text = new TextDecoder().decode(bytes);
  return size > limit ? `${text}… [error body cut at ${limit} bytes]` : text;
}

/**
 * The SDK only keeps `body.error` of a failed response; servers that put the message at the top level would
 * surface as "400 status code (no body)". Such bodies are re-wrapped as {error: body}; Gemini's OpenAI-compatible
 * API answers a one-element list ([{"error": {...}}]), whose element is kept.
 */
function rewrapped(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    const first: unknown = Array.isArray(parsed) && parsed.length === 1 ? parsed[0] : undefined;
    if (typeof first === 'object' && first !== null && !Array.isArray(first) && 'error' in first) return JSON.stringify(first);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !('error' in parsed)) return JSON.stringify({ error: parsed });
  } catch {
    // Not JSON (or cut short): the SDK reports plain text as the message already.
  }
  return text;
}

/** A server-sent-event stream whose last event lacks its blank line would be dropped by the SDK's decoder. */
function withFinalBlankLine(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      flush(controller) {
        controller.enqueue(new TextEncoder().encode('\n\n'));
      },
    }),
  );
}

async function followRedirects(inner: typeof globalThis.fetch, input: string | URL, init: RequestInit | undefined): Promise<Response> {
  let url = new URL(input);
  for (let redirects = 0; ; redirects++) {
    const response = await inner(url, { ...init, redirect: 'manual' });
    const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    if (location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    const next = new URL(location, url);
    if (next.origin !== url.origin) {
      throw new RedirectError(`the endpoint redirected to another server (${next.origin}); set compactionAgent.endpoint.baseUrl to it if you trust it`);
    }
    if (redirects + 1 > MAX_REDIRECTS) throw new RedirectError(`the endpoint redirected more than ${MAX_REDIRECTS} times (last to ${next.pathname})`);
    url = next;
  }
}

/** A GET answer (the model list) read up to MAX_LISTING_BYTES; a larger one becomes a clear, non-retried refusal. */
async function boundedListing(response: Response): Promise<Response> {
  const text = await readCapped(response.body, MAX_LISTING_BYTES + 1, 60_000);
  if (new TextEncoder().encode(text).byteLength <= MAX_LISTING_BYTES) {
    return new Response(text, { status: response.status, statusText: response.statusText, headers: withoutLength(response.headers) });
  }
  const message = `the server's answer is larger than ${MAX_LISTING_BYTES / (1024 * 1024)} MB and was not read`;
  return new Response(JSON.stringify({ error: { message } }), { status: 400, headers: { 'content-type': 'application/json' } });
}

function withoutLength(source: Headers): Headers {
  const headers = new Headers(source);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return headers;
}

export function errorBodyFetch(inner: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = typeof input === 'string' || input instanceof URL ? await followRedirects(inner, input, init) : await inner(input, init);
    if (response.ok) {
      const isEventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
      if (!isEventStream && (init?.method ?? 'GET').toUpperCase() === 'GET') return boundedListing(response);
      if (!isEventStream || !response.body) return response;
      return new Response(withFinalBlankLine(response.body), { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    const body = rewrapped(await readCapped(response.body, MAX_ERROR_BODY_BYTES, ERROR_BODY_TIMEOUT_MS));
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}
