// Binds the summarizer to a model stream: the SummarizeFn used by the agent loop, /compact and the review panel.
import type { SummarizeFn } from './compaction';
import { splitAtLatestCompaction } from '../context/contextBuilder';
import type { ModelStream } from '../llm/modelStream';
import type { SessionEntry } from '../session/entries';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { Complete } from './summarizer';
import { summarize } from './summarizer';

/** Thrown when the summarizing model fails; the session is left exactly as it was. */
export class SummarizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SummarizerError';
  }
}

/** One tool-less model call collected to text; a failed call rejects with the model's clear message. */
export function completeWithModel(model: ModelStream): Complete {
  return async (messages, options) => {
    const signal = options.signal ?? new AbortController().signal;
    for await (const event of model.stream({ messages, maxOutputTokens: options.maxTokens }, signal)) {
      if (event.type === 'done') return event.text;
      if (event.type === 'error') throw new SummarizerError(`Summarizing failed: ${event.error.message}`);
    }
    throw new SummarizerError('Summarizing failed: the model stream ended without an answer.');
  };
}

export interface ModelSummarizerOptions {
  model: ModelStream;
  counter: TokenCounter;
  /** Context window of the summarizing model. */
  summaryWindow: number;
  /** The session path at the moment of summarizing (the summary's appendix reads pins and requests from it). */
  path: () => readonly SessionEntry[];
}

export function modelSummarizer(options: ModelSummarizerOptions): SummarizeFn {
  const complete = completeWithModel(options.model);
  return async (request) => {
    const path = options.path();
    return summarize({
      path,
      plan: {
        summarizeEntryIds: request.entries.map((entry) => entry.id),
        turnPrefixEntryIds: request.turnPrefixEntries.map((entry) => entry.id),
        firstKeptEntryId: null,
      },
      previous: splitAtLatestCompaction(path).compaction ?? null,
      ...(request.instructions !== undefined ? { instructions: request.instructions } : {}),
      complete,
      signal: request.signal,
      counter: options.counter,
      summaryWindow: options.summaryWindow,
      maxSummaryTokens: Math.min(request.maxSummaryTokens, Math.floor(options.summaryWindow / 4)),
    });
  };
}
