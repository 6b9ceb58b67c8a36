// Compaction, stage 2b: writing the summary with model calls, each request fitted to the summarizing model's window in one step.
import type { ChatMessage } from '../context/chatMessage';
import { splitAtLatestCompaction } from '../context/contextBuilder';
import { droppedEntryIds, prunedToolResultIds, TURN_PREFIX_HEADING } from '../context/contextMarkers';
import { droppedParts } from '../context/contextDrops';
import type { ModelStream } from '../llm/modelStream';
import type { CompactionEntry, FileLedger, MessageEntry, SessionEntry, UserEntry } from '../session/entries';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { Cut } from './cutPlan';
import { APPENDIX_SHARE, extendFileLedger, pinnedReference, stripAppendix, summaryAppendix, type AppendixInput } from './summaryAppendix';
import { correctionMessage, summaryMessages, turnPrefixMessages } from './summaryPrompt';
import { fitSummaryRequest, RequestTooLargeError, type FitOptions, type FittedRequest, type RequestDraft, type RequestParts } from './summaryRequest';
import { entryBlock } from './summaryTranscript';
import { validateModelSummary, validateSummary } from './summaryValidation';

// ─── What stage 2 is given and returns ───

/**
 * What the summarizer is given, all of it decided before: where the plan cuts (read, never derived again), the
 * messages the summary replaces as the context builder sends them, and the pinned messages re-sent after it. The
 * previous summary, the user's requests and what was dropped it reads from the session path, which holds all of it.
 */
export interface SummarizeRequest {
  cut: Cut;
  entries: MessageEntry[];
  /** Head of a turn the cut splits, summarized apart (empty when the cut is at a turn start). */
  turnPrefixEntries: MessageEntry[];
  /** Pinned messages the context sends verbatim after the summary: the appendix names them, never repeats them. */
  pinned: MessageEntry[];
  /**
   * The request the summarized part ends in, as the plan decided it (the request of the turn its last message belongs
   * to, while it is sent): the summary keeps it in its Goal, and the appendix names it or says it is carried. Null: none.
   */
  lastRequest: UserEntry | null;
  instructions?: string;
  /** Most tokens the summary may take, in the summarizer's count (the window's summary threshold). */
  maxSummaryTokens: number;
  signal: AbortSignal;
}

export interface SummarizeResult {
  summary: string;
  turnPrefixSummary?: string;
  files: FileLedger;
  problems: string[];
  /** The summary failed validation twice: a person must review it before it is applied. */
  needsReview: boolean;
}

export type SummarizeFn = (request: SummarizeRequest) => Promise<SummarizeResult>;

export type Complete = (messages: ChatMessage[], options: { maxTokens: number; signal?: AbortSignal }) => Promise<string>;

export interface SummarizeInput extends Omit<SummarizeRequest, 'maxSummaryTokens' | 'signal'> {
  path: readonly SessionEntry[];
  previous: CompactionEntry | null;
  complete: Complete;
  signal?: AbortSignal;
  counter: TokenCounter;
  /** Context window of the summarizing model. */
  summaryWindow: number;
  /** Most tokens the summary may take (default: 80 % of the 16k reserve, at most a quarter of the window). */
  maxSummaryTokens?: number;
}

/** Thrown when the summarizing model fails or cannot be asked; the session is left exactly as it was. */
export class SummarizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SummarizerError';
  }
}

// ─── What the summary says besides the model's text ───

/** Index on the path of the last entry this summary replaces (it covers everything up to it). */
function coveredEnd(path: readonly SessionEntry[], replaced: readonly MessageEntry[]): number {
  const ids = new Set(replaced.map((entry) => entry.id));
  for (let index = path.length - 1; index >= 0; index--) if (ids.has((path[index] as SessionEntry).id)) return index;
  return -1;
}

/** Index of the first entry kept after the cut (the path's length when nothing before the summary is kept). */
function cutIndex(path: readonly SessionEntry[], firstKeptEntryId: string | null): number {
  const at = firstKeptEntryId === null ? -1 : path.findIndex((entry) => entry.id === firstKeptEntryId);
  return at >= 0 ? at : path.length;
}

/**
 * Every request the user made on the path up to `end` but `last` (the one the summarized part ends in, named on its
 * own), oldest first (earlier compactions included); requests the person dropped are named under "Dropped on purpose".
 */
function earlierRequests(path: readonly SessionEntry[], end: number, last: UserEntry | null): string[] {
  const dropped = droppedEntryIds(path);
  const requests: string[] = [];
  for (let index = 0; index <= end; index++) {
    const entry = path[index];
    if (entry?.type === 'user' && !entry.synthetic && !dropped.has(entry.id) && entry.id !== last?.id) requests.push(entry.text);
  }
  return requests;
}

/**
 * The appendix within `limit` tokens: built at a character budget, then rebuilt smaller while the count
 * is over (text that is dense in tokens, such as symbols or CJK, takes more than four characters a token).
 */
function cappedAppendix(input: Omit<AppendixInput, 'maxChars'>, limit: number, count: (text: string) => number): string {
  let maxChars = limit * 4;
  let appendix = summaryAppendix({ ...input, maxChars });
  for (let attempt = 0; attempt < 4; attempt++) {
    const tokens = count(appendix);
    if (tokens <= limit) break;
    maxChars = Math.floor(((maxChars * limit) / tokens) * 0.9);
    appendix = summaryAppendix({ ...input, maxChars });
  }
  return appendix;
}

/** What the previous compaction said, for the next summary: its model-written part and the split turn's summary. */
export function previousSummaryText(previous: CompactionEntry | null): string | null {
  if (!previous) return null;
  const parts = [stripAppendix(previous.summary)];
  if (previous.turnPrefixSummary?.trim()) parts.push(`${TURN_PREFIX_HEADING}\n${previous.turnPrefixSummary.trim()}`);
  return parts.join('\n\n');
}

// ─── The summary itself: each request built, measured and shrunk in one step (summaryRequest.ts) ───

/** The summarizing model's window could not hold even the least of a request: said in words the person can act on. */
function tooLarge(error: unknown, input: SummarizeInput, maxOutput: number): unknown {
  if (!(error instanceof RequestTooLargeError)) return error;
  const needed = Number.isFinite(error.tokens) ? `${error.tokens.toLocaleString('en-US')} tokens besides the conversation` : 'more tokens besides the conversation';
  return new SummarizerError(
    `Summarizing failed: the summary request needs ${needed}, more than the summarizing model's window of ${input.summaryWindow.toLocaleString('en-US')} tokens leaves with ${maxOutput.toLocaleString('en-US')} for the summary. Choose a summary model with a larger window (compactionAgent.compaction.summaryModel).`,
  );
}

function fit(draft: RequestDraft, options: Omit<FitOptions, 'counter' | 'window' | 'maxOutput'>, input: SummarizeInput, maxOutput: number): FittedRequest {
  try {
    return fitSummaryRequest(draft, { ...options, counter: input.counter, window: input.summaryWindow, maxOutput });
  } catch (error) {
    throw tooLarge(error, input, maxOutput);
  }
}

/** Room a correction retry adds to its first request: the answer (at most `maxTokens`) and the longest list of problems. */
function retryRoom(input: SummarizeInput, maxTokens: number): number {
  const count = (text: string): number => input.counter.countText(text);
  const problems = validateModelSummary('', { maxTokens, countTokens: () => maxTokens + 1 });
  return maxTokens + input.counter.countMessage({ role: 'assistant', content: '' }) + input.counter.countMessage(correctionMessage(problems)) + count(String(maxTokens * 10));
}

/**
 * One part of the summary: a model call, validated; on problems one corrective retry carrying the problems back. The
 * retry sends what the first request sent, fitted in the same step (its room was kept free when the transcript allowed).
 */
async function summarizePart(draft: RequestDraft, build: FitOptions['build'], input: SummarizeInput, maxTokens: number): Promise<{ text: string; problems: string[]; taken: number }> {
  const first = fit(draft, { build, reserve: retryRoom(input, maxTokens) }, input, maxTokens);
  const limits = { maxTokens, countTokens: (text: string) => input.counter.countText(text) };
  const answer = (await input.complete(first.messages, { maxTokens, signal: input.signal })).trim();
  const problems = validateModelSummary(answer, limits);
  if (problems.length === 0) return { text: answer, problems, taken: first.taken };
  let retry: FittedRequest;
  try {
    retry = fitSummaryRequest(draft, { build, counter: input.counter, window: input.summaryWindow, maxOutput: maxTokens, take: first.taken, tail: [{ role: 'assistant', content: answer }, correctionMessage(problems)] });
  } catch (error) {
    // A retry that cannot fit is not sent: the first answer goes to the person's review instead.
    if (error instanceof RequestTooLargeError) return { text: answer, problems, taken: first.taken };
    throw error;
  }
  const second = (await input.complete(retry.messages, { maxTokens, signal: input.signal })).trim();
  return { text: second, problems: validateModelSummary(second, limits), taken: first.taken };
}

/** Summarizes the head of a split turn in bullets, in parts when it is long, each part's request fitted in one step. */
async function summarizeTurnPrefix(prefix: readonly MessageEntry[], pruned: ReadonlySet<string>, input: SummarizeInput, maxTokens: number): Promise<string> {
  const blocks = prefix.map((entry) => entryBlock(entry, pruned));
  let bullets: string | null = null;
  for (let from = 0; from < blocks.length; ) {
    input.signal?.throwIfAborted();
    const request = fit({ blocks: blocks.slice(from), previous: bullets, request: null, dropped: [] }, { build: (parts) => turnPrefixMessages(parts.transcript, parts.previous) }, input, maxTokens);
    bullets = (await input.complete(request.messages, { maxTokens, signal: input.signal })).trim();
    from += Math.max(1, request.taken);
  }
  return bullets ?? '';
}

/**
 * Summarizes the previous summary plus the replaced entries. When that input exceeds the summarizing model's window
 * it is summarized in parts, each request carrying the running summary, the verbatim request and the dropped list,
 * built and measured until it fits (summaryRequest.ts), so none overflows. The turn prefix of a split turn gets its
 * own short summary. The appendix (files, requests, pins, drops) is added by code, reading the plan's cut and the
 * request it says the summarized part ends in. Two failed validations return needsReview instead of a silently bad summary.
 */
export async function summarize(input: SummarizeInput): Promise<SummarizeResult> {
  const maxTokens = input.maxSummaryTokens ?? Math.min(13_107, Math.floor(input.summaryWindow / 4));
  const count = (text: string): number => input.counter.countText(text);
  const replaced = input.entries;
  const prefix = input.turnPrefixEntries;
  const end = coveredEnd(input.path, [...replaced, ...prefix]);
  const request = input.lastRequest;
  const dropped = droppedParts(input.path, cutIndex(input.path, input.cut.firstKeptEntryId) - 1);
  const pruned = prunedToolResultIds(input.path);
  const blocks = replaced.length > 0 ? replaced.map((entry) => entryBlock(entry, pruned)) : ['(no new messages)'];
  let running = previousSummaryText(input.previous);
  let problems: string[] = [];
  for (let from = 0, index = 1; from < blocks.length; index++) {
    input.signal?.throwIfAborted();
    const build = (parts: RequestParts): ChatMessage[] =>
      summaryMessages({ transcript: parts.transcript, previousSummary: parts.previous, instructions: input.instructions, chunk: { index, last: parts.last }, currentRequest: parts.request, maxTokens, dropped: parts.dropped });
    const part = await summarizePart({ blocks: blocks.slice(from), previous: running, request: request?.text ?? null, dropped }, build, input, maxTokens);
    running = part.text;
    problems = part.problems;
    from += Math.max(1, part.taken);
  }
  let turnPrefixSummary: string | undefined;
  if (prefix.length > 0) {
    turnPrefixSummary = await summarizeTurnPrefix(prefix, pruned, input, Math.floor(maxTokens / 2));
    if (!turnPrefixSummary) problems.push('the summary of the split turn is empty');
  }
  const files = extendFileLedger(input.previous?.files, [...replaced, ...prefix]);
  const appendixLimit = Math.max(256, Math.floor(maxTokens * APPENDIX_SHARE));
  const appendix = cappedAppendix(
    {
      files,
      lastUserRequest: request?.text ?? null,
      // The plan's decision: the request is carried verbatim after the summary, so the appendix names it, once.
      requestCarried: input.cut.splitsTurn && input.cut.carriedRequestId !== null && input.cut.carriedRequestId === request?.id,
      earlierRequests: earlierRequests(input.path, end, request),
      pinned: input.pinned.map(pinnedReference),
      dropped,
    },
    appendixLimit,
    count,
  );
  const summary = `${running ?? ''}\n\n${appendix}`;
  const finalProblems = [...new Set([...problems, ...validateSummary(summary, { maxTokens, countTokens: count, maxAppendixTokens: appendixLimit })])];
  return { summary, turnPrefixSummary, files, problems: finalProblems, needsReview: finalProblems.length > 0 };
}

// ─── Bound to a model: the SummarizeFn the loop, /compact, the panel and a hand-off use ───

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
  /** The session path at the moment of summarizing (the summary's appendix reads requests and drops from it). */
  path: () => readonly SessionEntry[];
}

export function modelSummarizer(options: ModelSummarizerOptions): SummarizeFn {
  const complete = completeWithModel(options.model);
  return async (request) => {
    const path = options.path();
    return summarize({
      path,
      cut: request.cut,
      entries: request.entries,
      turnPrefixEntries: request.turnPrefixEntries,
      pinned: request.pinned,
      lastRequest: request.lastRequest,
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
