// Compaction, stage 2b: writing the summary with a model call, every request measured to fit the summarizing model's window.
import { measureRequest, requestRoom } from '../budget/meter';
import type { ChatMessage } from '../context/chatMessage';
import { splitAtLatestCompaction } from '../context/contextBuilder';
import { droppedEntryIds, prunedToolResultIds, TURN_PREFIX_HEADING } from '../context/contextMarkers';
import { droppedParts } from '../context/contextDrops';
import type { ModelStream } from '../llm/modelStream';
import type { CompactionEntry, FileLedger, MessageEntry, SessionEntry } from '../session/entries';
import type { BoundedList } from '../session/boundedList';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { Cut } from './cutPlan';
import {
  chunkBlocks,
  correctionMessage,
  entryBlock,
  extendFileLedger,
  fitTokens,
  stripAppendix,
  summaryAppendix,
  summaryMessages,
  turnPrefixMessages,
  validateModelSummary,
  validateSummary,
  type AppendixInput,
} from './summaryPrompt';

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

// ─── Sizes: every request is measured by the meter before it is sent ───

/** The appendix may take this share of the summary's token budget; it is capped, counted and validated. */
const APPENDIX_SHARE = 0.5;
/** Room for the correction request a failed validation adds (its list of problems). */
const CORRECTION_ROOM = 256;
/** A chunk of transcript smaller than this is not worth a call: the retry's room is given up first. */
const MIN_CHUNK = 256;
/** The request the conversation ends in may take this share of a request's room (it is carried verbatim anyway). */
const REQUEST_SHARE = 0.25;
/** The list of dropped parts may take this share. */
const DROPPED_SHARE = 0.1;
/** A previous summary (edited by a person, it may be longer than asked) may take this share. */
const PREVIOUS_SHARE = 0.34;

/** The fixed parts of every summary request, capped to their share of the room so the transcript always has some. */
interface FixedParts {
  previous: string | null;
  request: string | null;
  dropped: string[];
}

function fixedParts(previous: string | null, request: string | null, dropped: BoundedList<string>, room: number, maxTokens: number, count: (text: string) => number): FixedParts {
  const listed: string[] = [];
  let used = 0;
  let notListed = dropped.omitted;
  // Newest first: the latest drops say most about the approach the summary must not redo.
  for (let index = dropped.length - 1; index >= 0; index--) {
    const line = dropped[index] ?? '';
    const tokens = count(line) + 2;
    if (used + tokens > room * DROPPED_SHARE) {
      notListed += index + 1;
      break;
    }
    listed.unshift(line);
    used += tokens;
  }
  if (notListed > 0) listed.unshift(`(${notListed} earlier dropped part${notListed === 1 ? '' : 's'} not listed)`);
  return {
    previous: previous === null ? null : fitTokens(previous, Math.max(maxTokens, Math.floor(room * PREVIOUS_SHARE)), count),
    request: request === null ? null : fitTokens(request, Math.floor(room * REQUEST_SHARE), count),
    dropped: listed,
  };
}

/**
 * `messages` as sent, or with `transcript` shortened until the meter says they fit; a clear error when even the
 * fixed parts do not (the summarizing model's window is too small for this session's requests).
 */
function fitted(build: (transcript: string) => ChatMessage[], transcript: string, input: SummarizeInput, maxOutput: number): ChatMessage[] {
  const count = (text: string): number => input.counter.countText(text);
  let text = transcript;
  let messages = build(text);
  let measured = measureRequest(messages, input.counter, input.summaryWindow, maxOutput);
  for (let attempt = 0; !measured.fits && attempt < 6; attempt++) {
    const excess = measured.tokens - measured.room;
    const limit = count(text) - excess - 16;
    if (limit <= 0) break;
    text = fitTokens(text, limit, count);
    messages = build(text);
    measured = measureRequest(messages, input.counter, input.summaryWindow, maxOutput);
  }
  if (!measured.fits) {
    throw new SummarizerError(
      `Summarizing failed: the summary request needs ${measured.tokens.toLocaleString('en-US')} tokens besides the conversation, more than the summarizing model's window of ${input.summaryWindow.toLocaleString('en-US')} tokens leaves with ${maxOutput.toLocaleString('en-US')} for the summary. Choose a summary model with a larger window (compactionAgent.compaction.summaryModel).`,
    );
  }
  return messages;
}

/** One model call, validated; on problems one corrective retry carrying the problems back, when it fits the window. */
async function completeValidated(messages: ChatMessage[], input: SummarizeInput, maxTokens: number): Promise<{ text: string; problems: string[] }> {
  const limits = { maxTokens, countTokens: (text: string) => input.counter.countText(text) };
  const first = (await input.complete(messages, { maxTokens, signal: input.signal })).trim();
  const firstProblems = validateModelSummary(first, limits);
  if (firstProblems.length === 0) return { text: first, problems: [] };
  const retry = [...messages, { role: 'assistant' as const, content: first }, correctionMessage(firstProblems)];
  // A retry that would overflow is not sent: the first answer goes to the person's review instead.
  if (!measureRequest(retry, input.counter, input.summaryWindow, maxTokens).fits) return { text: first, problems: firstProblems };
  const second = (await input.complete(retry, { maxTokens, signal: input.signal })).trim();
  return { text: second, problems: validateModelSummary(second, limits) };
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
 * Every request the user made before the last one on the path up to `end`, oldest first (earlier compactions
 * included); requests the person dropped are named under "Dropped on purpose" instead.
 */
function earlierRequests(path: readonly SessionEntry[], end: number): string[] {
  const dropped = droppedEntryIds(path);
  const requests: string[] = [];
  for (let index = 0; index <= end; index++) {
    const entry = path[index];
    if (entry?.type === 'user' && !entry.synthetic && !dropped.has(entry.id)) requests.push(entry.text);
  }
  requests.pop();
  return requests;
}

function lastUserRequest(path: readonly SessionEntry[], end: number): string | null {
  const dropped = droppedEntryIds(path);
  for (let index = end; index >= 0; index--) {
    const entry = path[index];
    if (entry?.type === 'user' && !entry.synthetic && !dropped.has(entry.id)) return entry.text;
  }
  return null;
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

/** The first non-empty line after the block's role tag, shortened. */
function firstLine(block: string): string {
  const lines = block.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const [tag = '', body] = lines;
  const text = body !== undefined && /^\[[^\]]*\]$/.test(tag) ? `${tag} ${body}` : tag;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

// ─── The summary itself ───

/** Summarizes the head of a split turn in bullets, in parts when it is long, each part's request measured. */
async function summarizeTurnPrefix(prefix: readonly MessageEntry[], pruned: ReadonlySet<string>, input: SummarizeInput, maxTokens: number): Promise<string> {
  const count = (text: string): number => input.counter.countText(text);
  const room = requestRoom(input.counter, input.summaryWindow, maxTokens);
  const fixed = measureRequest(turnPrefixMessages('', 'x'), input.counter, input.summaryWindow, maxTokens).tokens + maxTokens;
  const chunks = chunkBlocks(prefix.map((entry) => entryBlock(entry, pruned)), Math.max(MIN_CHUNK, room - fixed), count);
  let bullets: string | null = null;
  for (const transcript of chunks) {
    input.signal?.throwIfAborted();
    const earlier = bullets;
    const messages = fitted((text) => turnPrefixMessages(text, earlier), transcript, input, maxTokens);
    bullets = (await input.complete(messages, { maxTokens, signal: input.signal })).trim();
  }
  return bullets ?? '';
}

/**
 * Summarizes the previous summary plus the replaced entries. When that input exceeds the summarizing model's
 * window it is summarized in chunks, each with the running summary; every request (chunk, retry, split turn) is
 * measured with the verbatim request, the dropped list and the previous summary it carries, so none overflows.
 * The turn prefix of a split turn gets its own short summary. The appendix (files, requests, pins, drops) is added
 * by code, reading the plan's cut. Two failed validations return needsReview instead of a silently bad summary.
 */
export async function summarize(input: SummarizeInput): Promise<SummarizeResult> {
  const maxTokens = input.maxSummaryTokens ?? Math.min(13_107, Math.floor(input.summaryWindow / 4));
  const count = (text: string): number => input.counter.countText(text);
  const replaced = input.entries;
  const prefix = input.turnPrefixEntries;
  const end = coveredEnd(input.path, [...replaced, ...prefix]);
  const request = lastUserRequest(input.path, end);
  const dropped = droppedParts(input.path, cutIndex(input.path, input.cut.firstKeptEntryId) - 1);
  const room = requestRoom(input.counter, input.summaryWindow, maxTokens);
  const fixed = fixedParts(previousSummaryText(input.previous), request, dropped, room, maxTokens, count);
  const prompt = (transcript: string, running: string | null, chunk: { index: number; count: number }): ChatMessage[] =>
    summaryMessages({ transcript, previousSummary: running, instructions: input.instructions, chunk, currentRequest: fixed.request, maxTokens, dropped: fixed.dropped });
  // Every chunk after the first carries the running summary instead of the previous one: room for the larger.
  const runningRoom = Math.max(0, maxTokens - (fixed.previous === null ? 0 : count(fixed.previous))) + 32;
  const fixedTokens = measureRequest(prompt('', fixed.previous, { index: 1, count: 2 }), input.counter, input.summaryWindow, maxTokens).tokens + runningRoom;
  const withRetry = room - fixedTokens - maxTokens - CORRECTION_ROOM;
  const chunkBudget = withRetry >= MIN_CHUNK ? withRetry : Math.max(MIN_CHUNK, room - fixedTokens);
  const pruned = prunedToolResultIds(input.path);
  const chunks = chunkBlocks(replaced.map((entry) => entryBlock(entry, pruned)), chunkBudget, count);
  let running = fixed.previous;
  let problems: string[] = [];
  for (const [index, transcript] of (chunks.length > 0 ? chunks : ['(no new messages)']).entries()) {
    input.signal?.throwIfAborted();
    const chunk = { index: index + 1, count: chunks.length };
    const earlier = running;
    const messages = fitted((text) => prompt(text, earlier, chunk), transcript, input, maxTokens);
    const result = await completeValidated(messages, input, maxTokens);
    running = result.text;
    problems = result.problems;
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
      lastUserRequest: request,
      // The plan's decision: the request is carried verbatim after the summary, so the appendix names it, once.
      requestCarried: input.cut.splitsTurn && input.cut.carriedRequestId !== null,
      earlierRequests: earlierRequests(input.path, end),
      pinned: input.pinned.map((entry) => `kept verbatim after this summary: ${firstLine(entryBlock(entry))}`),
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
