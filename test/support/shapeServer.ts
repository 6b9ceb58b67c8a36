// A loopback HTTP server answering "METHOD path" with recorded response shapes of real servers, recording what was asked.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON body; a raw answer ({status, text}, with an optional contentType) for errors, streams and oversized bodies;
 * or a function of the request's JSON body returning one of those (a server whose state a request changes, as
 * Ollama loads a model on the first chat request).
 */
export type ShapeAnswer = unknown;

/** A chat completion streamed as server-sent events, the way every OpenAI-compatible server answers `stream: true`. */
export function streamedReply(text: string, model: string, usage = { prompt_tokens: 120, completion_tokens: 8 }): { status: number; text: string; contentType: string } {
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  return {
    status: 200,
    contentType: 'text/event-stream',
    text: `${chunk({ role: 'assistant', content: text }, null)}${chunk({}, 'stop')}data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\ndata: [DONE]\n\n`,
  };
}

export interface ShapeServer {
  /** The OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1. */
  baseUrl: string;
  asked: string[];
  bodies: unknown[];
  /** Replaces what a route answers (the server loaded a model, was restarted with a larger -c...). */
  set(route: string, answer: ShapeAnswer): void;
  close(): Promise<void>;
}

function isRaw(answer: unknown): answer is { status: number; text: string; contentType?: string } {
  if (typeof answer !== 'object' || answer === null || !('status' in answer) || !('text' in answer)) return false;
  const keys = Object.keys(answer);
  return keys.length === 2 || (keys.length === 3 && 'contentType' in answer);
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

export async function startShapeServer(routes: Record<string, ShapeAnswer>): Promise<ShapeServer> {
  const table = new Map(Object.entries(routes));
  const asked: string[] = [];
  const bodies: unknown[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const key = `${request.method ?? 'GET'} ${request.url ?? '/'}`;
      asked.push(key);
      const body = await readBody(request);
      if (body !== undefined) bodies.push(body);
      const route = table.get(key);
      const answer: unknown = typeof route === 'function' ? (route as (body: unknown) => unknown)(body) : route;
      if (answer === undefined) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      } else if (isRaw(answer)) {
        response.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.text);
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    asked,
    bodies,
    set: (route, answer) => (answer === undefined ? table.delete(route) : table.set(route, answer)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
