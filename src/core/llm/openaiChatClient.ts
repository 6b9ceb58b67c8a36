// Streams chat completions from any OpenAI-compatible endpoint with retries, timeouts and classified errors.
import type { ImageInputMode } from '../context/userImages';
import { modelTakesImages } from '../context/userImages';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { EndpointFlags } from './endpointFlags';
import { detectEndpointFlags } from './endpointFlags';
import { errorBodyFetch } from './errorBodyFetch';
import { classifyError, makeModelError, scrubError } from './modelError';
import { outputLimitFromError } from './overflowPatterns';
import type { ModelInfo } from './modelList';
import { parseModelList } from './modelList';
import type { ChatRequest, ErrorEvent, ModelError, ModelStream, StreamEvent, TerminalEvent } from './modelStream';
import { blamesImages, imageRejections, type ImageRejections } from './imageRejections';
import type { ChatRequestBody, ImagePolicy } from './requestBody';
import { buildRequestBody, sentImageHashes } from './requestBody';
import type { RetryPolicy } from './retryPolicy';
import { abortableSleep, DEFAULT_RETRY_POLICY, retryDelay } from './retryPolicy';
import { StreamAssembler } from './streamAssembler';

export interface OpenAiChatClientOptions {
  baseUrl: string;
  /** May be empty for local servers. Never appears in an event, error or log line. */
  apiKey: string;
  model: string;
  headers?: Record<string, string>;
  /** Defaults to what the base URL suggests. */
  flags?: EndpointFlags;
  /** Limit for one whole HTTP exchange, from sending the request to the last chunk. */
  timeoutMs: number;
  /** Limit for the wait for the response and between two chunks; defaults to min(timeoutMs, 60 s). */
  idleTimeoutMs?: number;
  maxRetries: number;
  /** Injected by tests so retries do not wait; must resolve early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** [0, 1) source for retry jitter. */
  random?: () => number;
  fetch?: typeof globalThis.fetch;
  /** Whether images attached to user messages are sent (compactionAgent.endpoint.imageInput); default "auto". */
  imageInput?: ImageInputMode;
  /** Where refused images are remembered; default: the one record of the extension host. */
  imageRejections?: ImageRejections;
}

/** Thrown by listModels (the only call that throws); its message is already scrubbed of the key. */
export class ModelCallError extends Error {
  constructor(readonly modelError: ModelError) {
    super(modelError.message);
    this.name = 'ModelCallError';
  }
}

const SDK_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** Azure deployment-style endpoints need /openai/deployments/<model>; api-version travels as a query parameter. */
function sdkBaseUrl(baseUrl: string, model: string, flags: EndpointFlags): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  url.searchParams.delete('api-version');
  let path = url.pathname.replace(/\/+$/, '');
  if (flags.flavor === 'azure' && !/\/openai(\/|$)/.test(path)) path += '/openai';
  if (flags.flavor === 'azure' && /\/openai$/.test(path)) path += `/deployments/${encodeURIComponent(model)}`;
  url.pathname = path;
  return url.toString().replace(/\/+$/, '');
}

function sdkHeaders(options: OpenAiChatClientOptions, flags: EndpointFlags): Record<string, string | null> {
  const headers: Record<string, string | null> = { ...(options.headers ?? {}) };
  if (flags.apiKeyHeader === 'api-key') {
    headers['api-key'] = options.apiKey;
    headers['Authorization'] = null;
  } else if (!options.apiKey) {
    headers['Authorization'] = null;
  }
  return headers;
}

/** Resolves with the promise, or rejects as soon as the signal aborts (the SDK does not always notice mid-read). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * Why a 200 answer carried nothing: by its content type, an HTML page (a login page, proxy or wrong base URL)
 * or one JSON body (a server that ignores stream: true) says so instead of only "no finish reason".
 */
export function notAStream(contentType: string): string {
  const type = contentType.split(';')[0]?.trim().toLowerCase().slice(0, 100) ?? '';
  if (/html/.test(type)) return `the endpoint answered 200 with an HTML page (${type}), not a stream of completions: check the base URL (it usually ends in /v1) and any proxy or login page in front of it`;
  if (/json/.test(type)) return `the endpoint answered 200 with one JSON body (${type}) instead of a stream: it may not support streaming (stream: true), or the base URL points at something other than a chat completions API`;
  if (type && type !== 'text/event-stream') return `the endpoint answered 200 with ${type}, not a stream of completions (text/event-stream): check the base URL`;
  return 'the stream ended without a finish reason or any content';
}

export class OpenAiChatClient implements ModelStream {
  readonly flags: EndpointFlags;
  private readonly client: OpenAI;
  private readonly policy: RetryPolicy;
  private readonly idleTimeoutMs: number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  /** The most reply tokens the server said it takes (a refused max_tokens): every later call of this client asks for at most that. */
  private outputLimit: number | undefined;

  constructor(private readonly options: OpenAiChatClientOptions) {
    this.flags = options.flags ?? detectEndpointFlags(options.baseUrl);
    this.policy = { ...DEFAULT_RETRY_POLICY, maxRetries: Math.max(0, options.maxRetries) };
    this.idleTimeoutMs = options.idleTimeoutMs ?? Math.min(options.timeoutMs, 60_000);
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
    this.client = new OpenAI({
      // The SDK insists on a key; local servers take any, and the Authorization header is dropped when empty.
      apiKey: options.apiKey || 'no-key',
      baseURL: sdkBaseUrl(options.baseUrl, options.model, this.flags),
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: SDK_TIMEOUT_MS,
      defaultHeaders: sdkHeaders(options, this.flags),
      ...(this.flags.apiVersion ? { defaultQuery: { 'api-version': this.flags.apiVersion } } : {}),
      fetch: errorBodyFetch(options.fetch ?? globalThis.fetch),
      logLevel: 'off',
    });
  }

  async *stream(request: ChatRequest, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    const rejections = this.options.imageRejections ?? imageRejections;
    const policy = (): ImagePolicy => ({ takesImages: modelTakesImages(this.options.model, this.options.imageInput ?? 'auto'), refused: rejections.forModel(this.options.baseUrl, this.options.model) });
    let asked = this.withinOutputLimit(request);
    let body = buildRequestBody(this.options.model, asked, this.flags, policy());
    let pictures = sentImageHashes(asked, policy());
    let outputRetried = false;
    /** Images sent before the current retry without them: committed as refused only if the retry is not refused too. */
    let suspects: string[] = [];
    for (let attempt = 1; ; attempt++) {
      const assembler = new StreamAssembler();
      const outcome: TerminalEvent = yield* this.attempt(body, assembler, signal);
      if (suspects.length > 0 && (outcome.type === 'done' || outcome.error.kind !== 'badRequest')) rejections.add(this.options.baseUrl, this.options.model, suspects);
      suspects = [];
      if (outcome.type === 'done') {
        yield outcome;
        return;
      }
      // A refusal of a request with pictures: sent again at once with a line in their place (see imageRejections).
      if (outcome.error.kind === 'badRequest' && pictures.length > 0 && !assembler.hasOutput && !signal.aborted) {
        if (blamesImages(outcome.error.message)) rejections.add(this.options.baseUrl, this.options.model, pictures);
        else suspects = pictures;
        const refused = new Set([...rejections.forModel(this.options.baseUrl, this.options.model), ...pictures]);
        body = buildRequestBody(this.options.model, asked, this.flags, { ...policy(), refused });
        pictures = [];
        yield { type: 'retry', attempt, delayMs: 0, reason: `${outcome.error.message}; sending the request again without its images` };
        continue;
      }
      // A refusal of the reply's size that names the most the server takes: sent again at once asking for that much.
      const limit = outcome.error.kind === 'badRequest' && !outputRetried && !assembler.hasOutput && !signal.aborted ? outputLimitFromError(outcome.error.message) : undefined;
      if (limit !== undefined && asked.maxOutputTokens !== undefined && limit < asked.maxOutputTokens) {
        outputRetried = true;
        this.outputLimit = Math.min(this.outputLimit ?? limit, limit);
        asked = { ...asked, maxOutputTokens: limit };
        body = buildRequestBody(this.options.model, asked, this.flags, policy());
        yield { type: 'retry', attempt, delayMs: 0, reason: `${outcome.error.message}; sending the request again asking for at most ${limit} reply tokens` };
        continue;
      }
      const delayMs =
        assembler.hasOutput || signal.aborted ? undefined : retryDelay(outcome.error, attempt, this.policy, this.random);
      if (delayMs === undefined) {
        yield outcome;
        return;
      }
      yield { type: 'retry', attempt, delayMs, reason: outcome.error.message };
      // An injected sleep that fails must not break the never-throws promise; it only shortens the wait.
      await this.sleep(delayMs, signal).catch(() => undefined);
      if (signal.aborted) {
        yield this.failed(makeModelError('aborted', ''), assembler);
        return;
      }
    }
  }

  /** The request as this server takes it: no more reply tokens than it said it accepts. */
  private withinOutputLimit(request: ChatRequest): ChatRequest {
    const limit = this.outputLimit;
    return limit !== undefined && request.maxOutputTokens !== undefined && request.maxOutputTokens > limit ? { ...request, maxOutputTokens: limit } : request;
  }

  private failed(error: ModelError, assembler: StreamAssembler): ErrorEvent {
    return { type: 'error', error: scrubError(error, this.options.apiKey), partial: assembler.partial() };
  }

  /** One HTTP exchange. Yields the deltas and returns (never throws) the terminal event. */
  private async *attempt(
    body: ChatRequestBody,
    assembler: StreamAssembler,
    signal: AbortSignal,
  ): AsyncGenerator<StreamEvent, TerminalEvent> {
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) abort();
    let expired: 'timeout' | 'idle' | undefined;
    const expire = (why: 'timeout' | 'idle'): void => {
      expired ??= why;
      controller.abort();
    };
    const total = setTimeout(() => expire('timeout'), this.options.timeoutMs);
    let idle: ReturnType<typeof setTimeout> | undefined;
    // The idle clock runs only while waiting on the server, not while the caller handles an event.
    const waitFor = async <T>(promise: Promise<T>): Promise<T> => {
      idle = setTimeout(() => expire('idle'), this.idleTimeoutMs);
      try {
        return await untilAborted(promise, controller.signal);
      } finally {
        clearTimeout(idle);
      }
    };
    const interruption = (): ModelError | undefined =>
      signal.aborted ? makeModelError('aborted', '') : expired ? this.timeoutError(expired) : undefined;
    try {
      const params = body as unknown as ChatCompletionCreateParamsStreaming;
      const { data: stream, response } = await waitFor(this.client.chat.completions.create(params, { signal: controller.signal }).withResponse());
      const contentType = response.headers.get('content-type') ?? '';
      const iterator: AsyncIterator<ChatCompletionChunk> = stream[Symbol.asyncIterator]();
      for (;;) {
        const next = await waitFor(iterator.next());
        if (next.done) break;
        for (const event of assembler.push(next.value)) yield event;
      }
      const stopped = interruption();
      if (stopped) return this.failed(stopped, assembler);
      if (!assembler.hasFinish && !assembler.hasOutput) {
        return this.failed(makeModelError('invalidResponse', notAStream(contentType)), assembler);
      }
      return assembler.done();
    } catch (error) {
      return this.failed(interruption() ?? classifyError(error), assembler);
    } finally {
      clearTimeout(total);
      signal.removeEventListener('abort', abort);
      // Closes the connection when the caller stopped reading early or the exchange failed.
      controller.abort();
    }
  }

  private timeoutError(why: 'timeout' | 'idle'): ModelError {
    const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
    return why === 'timeout'
      ? makeModelError('timeout', `no complete answer within ${seconds(this.options.timeoutMs)} (endpoint.timeoutSeconds)`)
      : makeModelError('timeout', `the endpoint sent nothing for ${seconds(this.idleTimeoutMs)}`);
  }

  /** The endpoint's models with whatever limits its listing reports. Throws ModelCallError on failure. */
  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    try {
      const body: unknown = await this.client.get('/models', {
        timeout: this.options.timeoutMs,
        ...(signal ? { signal } : {}),
      });
      return parseModelList(body);
    } catch (error) {
      throw new ModelCallError(scrubError(classifyError(error), this.options.apiKey));
    }
  }
}
