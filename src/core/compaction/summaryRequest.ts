// Compaction, stage 2b: one summary request built, measured with the real counter and shrunk in one step, until it fits the summarizing model's window.
import { measureRequest } from '../budget/meter';
import type { ChatMessage } from '../context/chatMessage';
import { omittedFrom } from '../session/boundedList';
import type { TokenCounter } from '../tokens/tokenCounter';
import { fitTokens } from './summaryTranscript';

/** What a summary request carries besides its fixed instructions: every part may be shrunk to make it fit. */
export interface RequestDraft {
  /** Transcript blocks not summarized yet, oldest first: the request takes as many as fit (at least one); the next takes the rest. */
  blocks: readonly string[];
  /** The summary so far: the previous compaction's, the running summary of earlier parts, or the bullets of a turn's head. */
  previous: string | null;
  /** The request the conversation ends in, verbatim (it is carried or named anyway: its middle may go). */
  request: string | null;
  /** Parts the person dropped, one line each, oldest first (the newest are listed when not all fit); a bounded list counts the earlier ones it left out. */
  dropped: readonly string[];
}

/** The parts as one request sends them. */
export interface RequestParts {
  transcript: string;
  /** No block of the draft is left for a later request. */
  last: boolean;
  previous: string | null;
  request: string | null;
  dropped: string[];
}

export interface FitOptions {
  build: (parts: RequestParts) => ChatMessage[];
  counter: TokenCounter;
  /** The summarizing model's window, and the reply asked for. */
  window: number;
  maxOutput: number;
  /** Room left free when the transcript allows it: a correction retry adds the first answer and the list of problems. */
  reserve?: number;
  /** Messages sent after the built ones (a correction retry's answer and problems); the blocks taken are then fixed. */
  tail?: readonly ChatMessage[];
  /** How many blocks the request takes, when that is decided already (a retry sends what its first request sent). */
  take?: number;
}

export interface FittedRequest {
  messages: ChatMessage[];
  /** How many of the draft's blocks it carries (the next request starts after them). */
  taken: number;
  parts: RequestParts;
}

/** Thrown when nothing more can be shrunk and the request still does not fit. */
export class RequestTooLargeError extends Error {
  constructor(
    readonly tokens: number,
    readonly room: number,
  ) {
    super(`The summary request needs ${tokens.toLocaleString('en-US')} tokens; the window leaves ${room.toLocaleString('en-US')}.`);
    this.name = 'RequestTooLargeError';
  }
}

/** Shares of a request's room a part may keep before the transcript is shortened for it; below them it goes last. */
const SHARES = { dropped: 0.1, request: 0.25, previous: 0.34 } as const;
/** The transcript is not shortened below this (a smaller part is not worth a call): the retry's room goes first. */
const MIN_TRANSCRIPT = 256;
/** Rounds of build, measure and shrink; each round shrinks one part, so a handful always suffices. */
const MAX_ROUNDS = 24;

/** The current size of each shrinkable part: how many blocks (and the most, once some were left), dropped lines, the token limit of each text. */
interface Limits {
  take: number;
  most: number;
  fixed: boolean;
  transcript: number;
  request: number;
  previous: number;
  dropped: number;
}

function partsAt(draft: RequestDraft, limits: Limits, count: (text: string) => number): RequestParts {
  const listed = draft.dropped.slice(draft.dropped.length - limits.dropped);
  const left = draft.dropped.length - listed.length + omittedFrom(draft.dropped);
  const cut = (text: string | null, limit: number): string | null => (text === null || limit === Number.POSITIVE_INFINITY ? text : fitTokens(text, limit, count));
  return {
    transcript: cut(draft.blocks.slice(0, limits.take).join('\n\n'), limits.transcript) ?? '',
    last: limits.take >= draft.blocks.length,
    previous: cut(draft.previous, limits.previous),
    request: cut(draft.request, limits.request),
    dropped: left > 0 ? [`(${left} earlier dropped part${left === 1 ? '' : 's'} not listed)`, ...listed] : listed,
  };
}

/**
 * Builds the request from the draft, measures it with the counter every call is measured with, and shrinks what it
 * can until it fits the window with the reserve to spare, one part a round: first a part above its share of the room
 * (the dropped list, the pasted request, the previous summary) down to its share; then transcript blocks, left to the
 * next request; then the one block left, down to MIN_TRANSCRIPT; then the reserve; then each part down to its least.
 * While there is room, it takes more blocks. Throws RequestTooLargeError when nothing more can go.
 */
export function fitSummaryRequest(draft: RequestDraft, options: FitOptions): FittedRequest {
  const count = (text: string): number => options.counter.countText(text);
  // Blocks are counted when the request considers them (a long history is not counted again for every part).
  const counted: number[] = [];
  const blockTokens = (at: number): number => (counted[at] ??= count(draft.blocks[at] ?? '') + 2);
  const fixed = options.take !== undefined;
  const first = options.take ?? Math.min(1, draft.blocks.length);
  const limits: Limits = { take: first, most: fixed ? first : draft.blocks.length, fixed, transcript: Number.POSITIVE_INFINITY, request: Number.POSITIVE_INFINITY, previous: Number.POSITIVE_INFINITY, dropped: draft.dropped.length };
  let reserve = options.reserve ?? 0;
  const tail = options.tail ?? [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const parts = partsAt(draft, limits, count);
    const messages = [...options.build(parts), ...tail];
    const measured = measureRequest(messages, options.counter, options.window, options.maxOutput);
    const free = measured.room - reserve - measured.tokens;
    if (free >= 0) {
      // Room left: the next blocks that fit go along (counted one by one; the next request takes the rest).
      let more = 0;
      for (let spare = free, at = limits.take; limits.transcript === Number.POSITIVE_INFINITY && at < limits.most && blockTokens(at) <= spare; at++, more++) spare -= blockTokens(at);
      if (more === 0) return { messages, taken: limits.take, parts };
      limits.take += more;
      continue;
    }
    if (!shrink(draft, parts, limits, -free, measured.room, blockTokens, count, options.maxOutput)) {
      if (reserve > 0) reserve = 0;
      else if (!shrinkToLeast(draft, parts, limits, -free, count)) throw new RequestTooLargeError(measured.tokens, measured.room);
    }
  }
  throw new RequestTooLargeError(Number.NaN, Number.NaN);
}

/** One round's shrink before the reserve is given up: parts above their share, blocks, the one block. False when none can. */
function shrink(draft: RequestDraft, parts: RequestParts, limits: Limits, excess: number, room: number, blockTokens: (at: number) => number, count: (text: string) => number, maxOutput: number): boolean {
  const tokens = (text: string | null): number => (text === null ? 0 : count(text));
  const droppedTokens = parts.dropped.reduce((sum, line) => sum + count(line) + 2, 0);
  if (limits.dropped > 0 && droppedTokens > room * SHARES.dropped) {
    limits.dropped = fewerLines(draft.dropped, limits.dropped, droppedTokens - Math.floor(room * SHARES.dropped), count);
    return true;
  }
  const request = tokens(parts.request);
  if (request > room * SHARES.request) {
    limits.request = Math.max(1, Math.min(request - excess, Math.floor(room * SHARES.request)));
    return true;
  }
  const previous = tokens(parts.previous);
  const previousShare = Math.max(maxOutput, Math.floor(room * SHARES.previous));
  if (previous > previousShare) {
    limits.previous = Math.max(previousShare, previous - excess);
    return true;
  }
  // A retry's blocks are those its first request sent (its answer covers them): those are shortened, never left out.
  if (limits.take > 1 && !limits.fixed) {
    let freed = 0;
    while (limits.take > 1 && freed < excess) freed += blockTokens(--limits.take);
    limits.most = limits.take;
    return true;
  }
  const transcript = tokens(parts.transcript);
  if (transcript > MIN_TRANSCRIPT) {
    limits.transcript = Math.max(MIN_TRANSCRIPT, transcript - excess - 16);
    return true;
  }
  return false;
}

/** The last resort: the dropped list, then the request, then the previous summary, each cut by the excess. */
function shrinkToLeast(draft: RequestDraft, parts: RequestParts, limits: Limits, excess: number, count: (text: string) => number): boolean {
  if (limits.dropped > 0) {
    limits.dropped = fewerLines(draft.dropped, limits.dropped, excess, count);
    return true;
  }
  for (const part of ['request', 'previous'] as const) {
    const text = parts[part];
    const tokens = text === null ? 0 : count(text);
    // fitTokens keeps at least 200 characters: below that a part cannot shrink any more.
    if (text !== null && text.length > 200 && tokens > 1) {
      limits[part] = Math.max(1, tokens - excess - 16);
      return true;
    }
  }
  return false;
}

/** How many of the newest dropped lines remain once about `tokens` tokens of them go (at least one goes). */
function fewerLines(lines: readonly string[], listed: number, tokens: number, count: (text: string) => number): number {
  let left = listed;
  let freed = 0;
  for (let at = lines.length - listed; left > 0 && (freed < tokens || left === listed); at++, left--) freed += count(lines[at] ?? '') + 2;
  return left;
}
