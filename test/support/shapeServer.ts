// A loopback HTTP server answering "METHOD path" with recorded response shapes of real servers, recording what was asked.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A JSON body, or a raw answer ({status, text}) for errors and oversized bodies. */
export type ShapeAnswer = unknown;

export interface ShapeServer {
  /** The OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1. */
  baseUrl: string;
  asked: string[];
  bodies: unknown[];
  /** Replaces what a route answers (the server loaded a model, was restarted with a larger -c...). */
  set(route: string, answer: ShapeAnswer): void;
  close(): Promise<void>;
}

function isRaw(answer: unknown): answer is { status: number; text: string } {
  return typeof answer === 'object' && answer !== null && 'status' in answer && 'text' in answer && Object.keys(answer).length === 2;
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
      const answer = table.get(key);
      if (answer === undefined) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      } else if (isRaw(answer)) {
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
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
