// JSON from the configured server's own API (beside its /v1): only that origin, no redirects, bounded answers.

/** Fetches JSON from a path on the configured server's root; rejects on any failure. */
export type FetchJson = (path: string, init?: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal }) => Promise<unknown>;

/** Most bytes of one probe's answer read (a listing of a few thousand models fits); a larger one is refused. */
export const MAX_PROBE_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The server's root: the base URL without its OpenAI-compatible `/v1` suffix (where Ollama and others serve their own
 * API), and an Azure deployment-style URL (…/openai/deployments/<name>) without its deployment: the resource.
 */
export function serverRoot(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl);
    url.search = '';
    url.hash = '';
    url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '').replace(/\/openai\/deployments\/[^/]+$/, '');
    return url.toString().replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/** Reads a body up to `limit` bytes; more than that rejects (a probe's answer is small). */
async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`the answer is larger than ${limit} bytes`);
  }
  return readStream(response.body, limit);
}

async function readStream(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the answer is larger than ${limit} bytes`);
    }
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * A FetchJson over `fetch` that only ever reaches the configured server: the path is appended to its root,
 * a result on another origin is refused, redirects are not followed, a non-2xx answer rejects, and an
 * answer over MAX_PROBE_BODY_BYTES is refused unread.
 */
export function serverFetchJson(baseUrl: string, headers: Record<string, string>, fetchImpl: typeof fetch = fetch, maxBytes = MAX_PROBE_BODY_BYTES): FetchJson | undefined {
  const root = serverRoot(baseUrl);
  if (!root) return undefined;
  const origin = new URL(root).origin;
  return async (path, init) => {
    if (!path.startsWith('/')) throw new Error(`Not a server path: ${path}`);
    const url = new URL(root + path);
    if (url.origin !== origin) throw new Error('Refusing to send a probe to another server');
    const response = await fetchImpl(url, {
      method: init?.method ?? 'GET',
      headers: { ...headers, ...(init?.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      redirect: 'manual',
      ...(init?.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    const body: unknown = JSON.parse(await readBounded(response, maxBytes));
    return body;
  };
}
