// Turns whatever a model call failed with (SDK errors, network errors, odd bodies) into a clear, key-free ModelError.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ModelError, ModelErrorKind } from './modelStream';
import { RedirectError } from './errorBodyFetch';
import { classifyOverflow } from './overflowPatterns';

/** Replaces every occurrence of the secret (and its bearer form) in a text; short secrets are left alone. */
export function scrubSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}

/** Milliseconds the server asked to wait, from retry-after-ms or Retry-After (seconds or an HTTP date). */
export function retryAfterFromHeaders(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function kindForStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'notFound';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rateLimit';
  if (status >= 500) return 'server';
  return 'badRequest';
}

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(['rateLimit', 'server', 'network', 'timeout']);

const KIND_LABEL: Record<ModelErrorKind, string> = {
  overflow: 'The conversation is longer than the model’s context window',
  auth: 'The endpoint rejected the API key',
  rateLimit: 'The endpoint is rate limiting requests',
  server: 'The endpoint had a server error',
  network: 'Could not reach the endpoint',
  timeout: 'The endpoint did not answer in time',
  aborted: 'The request was cancelled',
  badRequest: 'The endpoint rejected the request',
  invalidResponse: 'The endpoint sent a response that is not valid',
  notFound: 'The endpoint or model was not found',
};

/** Text of the server's error, wherever the SDK put it: {message}, {error: {message}}, {detail}, a bare string. */
function serverDetail(error: APIError): string {
  const body: unknown = error.error;
  const pick = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    return pick(record['message']) ?? pick(record['error']) ?? pick(record['detail']);
  };
  return pick(body) ?? error.message.replace(/^\d{3}\s*/, '');
}

/** Longest server detail shown: a 100 MB error body must not become a 100-million-character message. */
const MAX_DETAIL_CHARS = 2000;

export function makeModelError(kind: ModelErrorKind, rawDetail: string, extra: Partial<ModelError> = {}): ModelError {
  const label = KIND_LABEL[kind];
  const detail = rawDetail.length > MAX_DETAIL_CHARS ? `${rawDetail.slice(0, MAX_DETAIL_CHARS)}… [${rawDetail.length - MAX_DETAIL_CHARS} more characters]` : rawDetail;
  const message = detail && detail !== label ? `${label}: ${detail}` : label;
  return { kind, message, retryable: RETRYABLE.has(kind), ...extra };
}

/** Statuses whose refusal may be an overflow a server words its own way (not auth, not found, not a timeout or rate limit). */
function mayBeOverflow(status: number | undefined): boolean {
  return status === undefined || (status >= 400 && status < 500 && ![401, 403, 404, 408, 429].includes(status));
}

/** A refusal we do not know the words of, but which names a token limit: said so, since its numbers are not read. */
const UNRECOGNIZED_OVERFLOW_NOTE = 'not a message we know, but it names a token limit, so it is taken as a context overflow';

function overflowError(detail: string, statusNote: string, status: number | undefined, found: { recognized: boolean; contextWindow?: number; promptTokens?: number }): ModelError {
  const text = found.recognized ? `${detail}${statusNote}` : `${detail}${statusNote} (${UNRECOGNIZED_OVERFLOW_NOTE})`;
  return makeModelError('overflow', text, {
    ...(status ? { status } : {}),
    ...(found.contextWindow ? { contextWindow: found.contextWindow } : {}),
    ...(found.promptTokens ? { promptTokens: found.promptTokens } : {}),
  });
}

function fromApiError(error: APIError): ModelError {
  const status = error.status;
  const detail = serverDetail(error);
  const code = typeof error.code === 'string' ? error.code : '';
  const type = typeof error.type === 'string' ? error.type : '';
  const statusNote = status ? ` (HTTP ${status})` : '';
  const streamStatus = status === undefined ? streamErrorStatus(error) : undefined;
  // An unknown wording counts only on a 4xx refusal (a stream error counts when its body names a 4xx code).
  const found = status === undefined || ![401, 403, 404, 429].includes(status) ? classifyOverflow(`${code} ${type} ${detail}`, error.error) : undefined;
  if (found && (found.recognized || (status !== undefined ? mayBeOverflow(status) : streamStatus !== undefined && mayBeOverflow(streamStatus)))) {
    return overflowError(detail, statusNote, status ?? streamStatus, found);
  }
  if (status === undefined) return streamError(error, detail);
  const kind = kindForStatus(status);
  const retryAfterMs = retryAfterFromHeaders(error.headers);
  const built = makeModelError(kind, `${detail}${statusNote}`, {
    status,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
  // OpenAI answers 429 when the account is out of credit; waiting will not help.
  if (kind === 'rateLimit' && /insufficient_quota|quota/i.test(`${code} ${detail}`)) built.retryable = false;
  return built;
}

/** The 4xx/5xx code an error event inside a stream names in its body, if any. */
function streamErrorStatus(error: APIError): number | undefined {
  const body = error.error;
  const code = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['code'] : undefined;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : typeof code === 'string' && /^[45]\d\d$/.test(code) ? Number(code) : undefined;
}

/**
 * An error event inside a stream has no HTTP status. Before any output it is retried like a server error
 * (the caller never retries once output streamed), unless its body names a 4xx code.
 */
function streamError(error: APIError, detail: string): ModelError {
  const status = streamErrorStatus(error);
  const kind = status !== undefined ? kindForStatus(status) : 'server';
  return makeModelError(kind, `the stream reported an error: ${detail}`, status !== undefined ? { status } : {});
}

function causeText(error: Error): string {
  const cause: unknown = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const inner = causeText(cause);
    return typeof code === 'string' && !inner.includes(code) ? `${inner} (${code})` : inner;
  }
  return error.message;
}

/** Classifies a failure that is not a timeout or a cancellation (the caller knows about those). */
export function classifyError(error: unknown): ModelError {
  if (error instanceof APIUserAbortError) return makeModelError('aborted', '');
  if (error instanceof APIConnectionTimeoutError) return makeModelError('timeout', '');
  if (error instanceof APIConnectionError) {
    const cause: unknown = (error as { cause?: unknown }).cause;
    if (cause instanceof RedirectError) return makeModelError('badRequest', cause.message);
    return makeModelError('network', causeText(error));
  }
  if (error instanceof RedirectError) return makeModelError('badRequest', error.message);
  if (error instanceof APIError) return fromApiError(error as APIError);
  if (error instanceof SyntaxError) return makeModelError('invalidResponse', `malformed data in the stream (${error.message})`);
  if (error instanceof Error) {
    // Mid-stream socket failures surface from fetch as TypeError("terminated") with the real reason in `cause`.
    return makeModelError('network', causeText(error));
  }
  return makeModelError('invalidResponse', String(error));
}

/** The same error with the secret removed from its message. */
export function scrubError(error: ModelError, secret: string | undefined): ModelError {
  return { ...error, message: scrubSecret(error.message, secret) };
}
