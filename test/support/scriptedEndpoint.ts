// A small OpenAI-compatible HTTP server that replays scripted replies and faults in the real wire format.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReplyStep, ScriptStep, ScriptedUsage } from './scriptedSteps';
import type { WireContext } from './scriptedWire';
import { autoUsage, chunk, completion, finishReasonOf, replyChunks, splitText, sse, usageChunk } from './scriptedWire';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body (what the model was sent). */
  body: unknown;
}

/** Chooses the step for a request by its content; `index` counts chat requests from 0. */
export type Responder = (request: RecordedRequest, index: number) => ScriptStep | Promise<ScriptStep>;

/** Steps in order (one per chat request), or a function choosing by content. */
export type Script = ScriptStep[] | Responder;

export interface ScriptedEndpointOptions {
  port?: number;
  host?: string;
  /** When set, requests must carry it (Bearer or api-key header) or get OpenAI's 401. */
  apiKey?: string;
  /** Entries of /v1/models; defaults to one model. */
  models?: unknown[];
  model?: string;
  /**
   * A server's own API beside the OpenAI one (Ollama's /api/ps, llama.cpp's /props...): the JSON body answered for a
   * method and path (without the query), or undefined for a 404.
   */
  routes?: (method: string, path: string) => unknown;
}

export interface ScriptedEndpoint {
  /** Base URL including /v1. */
  url: string;
  /** Every chat-completions request received, in order. */
  requests: RecordedRequest[];
  /** How many chat-completions requests arrived. */
  readonly requestCount: number;
  /** How many /models requests arrived. */
  readonly modelListCount: number;
  close(): Promise<void>;
}

function headerRecord(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function isStreaming(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>)['stream'] === true;
}

function wantsUsage(body: unknown): boolean {
  const options = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['stream_options'] : undefined;
  return typeof options === 'object' && options !== null && (options as Record<string, unknown>)['include_usage'] === true;
}

function usageFor(step: ReplyStep, body: unknown): ScriptedUsage | undefined {
  if (step.usage === 'none') return undefined;
  return step.usage === undefined || step.usage === 'auto' ? autoUsage(body, step) : step.usage;
}

function startStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

function textChunks(context: WireContext, text: string | undefined): string[] {
  return [chunk(context, { role: 'assistant', content: '' }), ...splitText(text ?? '', 16).map((piece) => chunk(context, { content: piece }))].map(sse);
}

async function streamReply(response: ServerResponse, context: WireContext, step: ReplyStep, body: unknown): Promise<void> {
  startStream(response);
  for (const piece of replyChunks(context, step)) {
    if (response.destroyed) return;
    response.write(sse(piece));
    if (step.chunkDelayMs) await wait(step.chunkDelayMs);
  }
  response.write(sse(chunk(context, {}, finishReasonOf(step))));
  const usage = usageFor(step, body);
  if (usage && wantsUsage(body)) response.write(sse(usageChunk(context, usage)));
  response.end(sse('[DONE]'));
}

/** Runs one step; `hang` registers the response so close() can end it. */
async function perform(step: ScriptStep, response: ServerResponse, context: WireContext, body: unknown): Promise<void> {
  const streaming = isStreaming(body);
  switch (step.kind) {
    case 'reply':
      if (streaming) return streamReply(response, context, step, body);
      return sendJson(response, 200, completion(context, step, usageFor(step, body)));
    case 'http':
      return sendJson(response, step.status, step.body, step.headers);
    case 'reset':
      startStream(response);
      response.write(textChunks(context, step.text).join(''), () => response.socket?.destroy());
      return;
    case 'malformed':
      if (!streaming) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"id": "broken", "choices": [');
        return;
      }
      startStream(response);
      response.end(`${textChunks(context, step.text).join('')}data: {"id": "broken", "choices": [\n\n`);
      return;
    case 'noFinish':
      startStream(response);
      response.end(`${textChunks(context, step.text).join('')}${sse('[DONE]')}`);
      return;
    case 'hang':
      if (step.text !== undefined) {
        startStream(response);
        response.write(textChunks(context, step.text).join(''));
      }
      return;
  }
}

/** Out-of-process tests read what the model was sent here (GET, JSON array) and clear it (DELETE). */
export const REQUESTS_ROUTE = '/__scripted/requests';

function answerRequestsRoute(method: string | undefined, requests: RecordedRequest[], response: ServerResponse): void {
  if (method === 'GET') return sendJson(response, 200, requests);
  if (method === 'DELETE') {
    const cleared = requests.length;
    requests.length = 0;
    return sendJson(response, 200, { cleared });
  }
  sendJson(response, 405, { error: { message: `scripted endpoint: ${REQUESTS_ROUTE} takes GET or DELETE` } });
}

/** Starts the server on 127.0.0.1 (port 0 = any free port). */
export async function startScriptedEndpoint(script: Script, options: ScriptedEndpointOptions = {}): Promise<ScriptedEndpoint> {
  const requests: RecordedRequest[] = [];
  let modelListCount = 0;
  const model = options.model ?? 'demo-model';
  const models = options.models ?? [{ id: model, object: 'model', created: 0, owned_by: 'scripted-endpoint' }];

  const nextStep = async (recorded: RecordedRequest, index: number): Promise<ScriptStep> => {
    if (typeof script === 'function') return script(recorded, index);
    return (
      script[index] ?? {
        kind: 'http',
        status: 500,
        body: { error: { message: `scripted endpoint: no step for request #${index + 1} (the script has ${script.length})` } },
      }
    );
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const headers = headerRecord(request);
    const text = await readBody(request);
    if (path === REQUESTS_ROUTE) {
      answerRequestsRoute(request.method, requests, response);
      return;
    }
    if (options.apiKey !== undefined) {
      const given = headers['api-key'] ?? headers['authorization']?.replace(/^Bearer\s+/i, '');
      if (given !== options.apiKey) {
        sendJson(response, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
        return;
      }
    }
    const own = options.routes?.(request.method ?? 'GET', path);
    if (own !== undefined) {
      sendJson(response, 200, own);
      return;
    }
    if (request.method === 'GET' && path.endsWith('/models')) {
      modelListCount++;
      sendJson(response, 200, { object: 'list', data: models });
      return;
    }
    if (request.method !== 'POST' || !path.endsWith('/chat/completions')) {
      sendJson(response, 404, { error: { message: `scripted endpoint: no route for ${request.method ?? '?'} ${path}` } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      sendJson(response, 400, { error: { message: 'scripted endpoint: the request body is not JSON' } });
      return;
    }
    const recorded: RecordedRequest = { method: request.method, path, headers, body };
    const index = requests.length;
    requests.push(recorded);
    const context: WireContext = { id: `chatcmpl-scripted-${index + 1}`, model, created: Math.floor(Date.now() / 1000) };
    await perform(await nextStep(recorded, index), response, context, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: { message: `scripted endpoint failed: ${String(error)}` } });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}/v1`,
    requests,
    get requestCount() {
      return requests.length;
    },
    get modelListCount() {
      return modelListCount;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
