// A refused image does not poison later turns, and a 200 answer that is an HTML page or one JSON body says so.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamEvent } from '../../src/core/llm/modelStream';
import { ImageRejections } from '../../src/core/llm/imageRejections';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';

const SSE_OK = 'data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

interface Seen {
  bodies: string[];
}

/** A fetch that answers each call with the next of `answers` (the last repeats). */
function fakeFetch(answers: Array<() => Response>, seen: Seen): typeof globalThis.fetch {
  let call = 0;
  return (_input, init) => {
    seen.bodies.push(typeof init?.body === 'string' ? init.body : '');
    const answer = answers[Math.min(call++, answers.length - 1)] as () => Response;
    return Promise.resolve(answer());
  };
}

const sse = (): Response => new Response(SSE_OK, { status: 200, headers: { 'content-type': 'text/event-stream' } });
const refusal = (message: string) => (): Response => new Response(JSON.stringify({ error: { message } }), { status: 400, headers: { 'content-type': 'application/json' } });

function client(answers: Array<() => Response>, seen: Seen, rejections: ImageRejections): OpenAiChatClient {
  return new OpenAiChatClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: '', model: 'gpt-4o', timeoutMs: 5000, maxRetries: 2, fetch: fakeFetch(answers, seen), sleep: () => Promise.resolve(), imageRejections: rejections });
}

const withImage: ChatRequest = { messages: [{ role: 'user', content: 'what is this?\n\n[image attached: a.png]', images: [{ blob: { sha256: 'f'.repeat(64), bytes: 3, chars: 3 }, mimeType: 'image/png', dataUrl: 'data:image/png;base64,AAAA' }] }] };

async function events(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const found: StreamEvent[] = [];
  for await (const event of stream) found.push(event);
  return found;
}

describe('an endpoint that refuses an image', () => {
  it('gets the request again without it, and later requests send a line in its place', async () => {
    const seen: Seen = { bodies: [] };
    const rejections = new ImageRejections();
    const first = await events(client([refusal('Invalid image data'), sse], seen, rejections).stream(withImage, new AbortController().signal));
    expect(first.at(-1)?.type).toBe('done');
    expect(seen.bodies[0]).toContain('image_url');
    expect(seen.bodies[1]).not.toContain('image_url');
    expect(seen.bodies[1]).toContain('endpoint refused it earlier');
    const later = await events(client([sse], seen, rejections).stream(withImage, new AbortController().signal));
    expect(later.at(-1)?.type).toBe('done');
    expect(seen.bodies[2]).not.toContain('image_url');
  });

  it('keeps the image when the request without it is refused as well (the image was not the cause)', async () => {
    const seen: Seen = { bodies: [] };
    const rejections = new ImageRejections();
    const outcome = await events(client([refusal('tools[0] is invalid')], seen, rejections).stream(withImage, new AbortController().signal));
    expect(outcome.at(-1)?.type).toBe('error');
    expect(seen.bodies).toHaveLength(2);
    expect(rejections.forModel('http://127.0.0.1:9/v1', 'gpt-4o').size).toBe(0);
  });
});

describe('a 200 answer that is no stream', () => {
  for (const [type, body, expected] of [
    ['text/html; charset=utf-8', '<!doctype html><html><body>Sign in</body></html>', /HTML page/],
    ['application/json', '{"id":"x","choices":[{"message":{"role":"assistant","content":"hi"}}]}', /one JSON body/],
  ] as const) {
    it(`says what it got for ${type}`, async () => {
      const seen: Seen = { bodies: [] };
      const answer = (): Response => new Response(body, { status: 200, headers: { 'content-type': type } });
      const outcome = await events(client([answer], seen, new ImageRejections()).stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
      const last = outcome.at(-1);
      expect(last?.type).toBe('error');
      expect(last?.type === 'error' ? last.error.message : '').toMatch(expected);
    });
  }
});
