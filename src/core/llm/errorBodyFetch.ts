// Wraps fetch so error bodies that are not shaped {error: ...} (vLLM's top-level {message}) reach the SDK intact.
/**
 * The SDK only keeps `body.error` of a failed response; servers that put the message at the top level would
 * surface as "400 status code (no body)". Such bodies are re-wrapped as {error: body}.
 */
export function errorBodyFetch(inner: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const text = await response.text();
    let body = text;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !('error' in parsed)) {
        body = JSON.stringify({ error: parsed });
      }
    } catch {
      // Not JSON: the SDK reports plain text as the message already.
    }
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}
