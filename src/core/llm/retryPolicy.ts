// When to retry a failed model call and how long to wait: exponential backoff with jitter, or what the server asked.
import type { ModelError } from './modelStream';

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff delay; doubles on each retry. */
  baseDelayMs: number;
  /** Cap for computed backoff. */
  maxDelayMs: number;
  /** A server asking for a longer wait than this is not retried: the error is reported with retryAfterMs. */
  maxRetryAfterMs: number;
}

/**
 * Kinds retried automatically. Timeouts are not: the call already used its whole time budget, so the
 * caller decides (the error stays marked retryable).
 */
const AUTO_RETRIED: ReadonlySet<ModelError['kind']> = new Set(['rateLimit', 'server', 'network']);

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/**
 * The wait before retry number `attempt` (1-based), or undefined when the call must not be retried.
 * `random` returns [0, 1); the jitter spreads delays over 50%..100% of the backoff so clients do not retry in step.
 */
export function retryDelay(
  error: ModelError,
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (!error.retryable || !AUTO_RETRIED.has(error.kind) || attempt > policy.maxRetries) return undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.round(backoff * (0.5 + 0.5 * random()));
  // A server asking for 0 s (or a date in the past) still gets the backoff: no burst of immediate retries.
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxRetryAfterMs ? Math.max(Math.ceil(error.retryAfterMs), jittered) : undefined;
  }
  return jittered;
}

/** Waits `ms` or until the signal aborts, whichever comes first; never rejects. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
