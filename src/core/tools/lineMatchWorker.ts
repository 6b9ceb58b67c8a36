// Runs a search regex over a file's lines in a worker thread under a time limit: no pattern can block the caller.
import { Worker } from 'node:worker_threads';

export interface LineMatch {
  /** 1-based line number. */
  line: number;
  text: string;
}

export type MatchOutcome = { kind: 'done'; matches: LineMatch[] } | { kind: 'timeout' } | { kind: 'aborted' };

/** Longest matching line sent back whole; the tool shows less anyway. */
const MAX_LINE_CHARS = 1000;
/** How long a worker may take to come up (a loaded machine) before the search gives up on it. */
const STARTUP_LIMIT_MS = 15_000;

// Plain JavaScript evaluated in the worker: no bundler entry point needed, the same in the CLI and the extension host.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', ({ text, limit }) => {
  const matches = [];
  const lines = text.split(/\\r?\\n/);
  for (let i = 0; i < lines.length && matches.length < limit; i++) {
    regex.lastIndex = 0;
    if (regex.test(lines[i])) matches.push({ line: i + 1, text: lines[i].slice(0, ${MAX_LINE_CHARS}) });
  }
  parentPort.postMessage(matches);
});
`;

/** One worker per search; `match` calls run one at a time. A timeout or abort terminates the worker. */
export class LineMatchWorker {
  private readonly worker: Worker;
  private online = false;
  private stopped = false;

  constructor(regex: RegExp) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source: regex.source, flags: regex.flags },
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    this.worker.once('online', () => (this.online = true));
    // Errors are reported to the pending match; this keeps an idle worker's error from being unhandled.
    this.worker.on('error', () => undefined);
  }

  /** The matching lines of `text` (at most `limit`); the time limit counts from when the worker is running. */
  match(text: string, limit: number, timeoutMs: number, signal?: AbortSignal): Promise<MatchOutcome> {
    return new Promise<MatchOutcome>((resolve, reject) => {
      if (this.stopped) {
        reject(new Error('the search worker was already stopped'));
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.worker.off('message', onMessage).off('error', onError).off('exit', onExit).off('online', startClock);
      };
      const stop = (outcome: MatchOutcome): void => {
        cleanup();
        void this.close();
        resolve(outcome);
      };
      const onMessage = (data: unknown): void => {
        cleanup();
        resolve({ kind: 'done', matches: data as LineMatch[] });
      };
      const onError = (error: Error): void => {
        cleanup();
        reject(error);
      };
      const onExit = (): void => onError(new Error('the search worker stopped unexpectedly'));
      const onAbort = (): void => stop({ kind: 'aborted' });
      const startClock = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => stop({ kind: 'timeout' }), timeoutMs);
      };
      if (signal?.aborted) {
        stop({ kind: 'aborted' });
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      if (this.online) startClock();
      else {
        timer = setTimeout(() => onError(new Error('the search worker did not start')), STARTUP_LIMIT_MS);
        this.worker.once('online', startClock);
      }
      this.worker.postMessage({ text, limit });
    });
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.worker.terminate();
  }
}
