// Compaction, stage 1 of 4 (plan → summarize → propose → apply): where to cut, as data every later stage reads.
import type { EntryCosts } from '../budget/meter';
import { contextParts } from '../context/contextBuilder';
import { droppedEntryIds, prunedToolResultIds } from '../context/contextMarkers';
import { contextTurns, isRequest, sentRequest, turnByEntry } from '../context/contextTurns';
import type { MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';

/** Every figure in the endpoint's units, as the meter measured them. */
export interface CutOptions {
  keepRecentTokens: number;
  /** Usable prompt budget (window − output reserve). */
  usable: number;
  /** System prompt + tool definitions, present in every call. */
  fixedTokens: number;
  /** The summary in the context now (counted in `needed`). */
  currentSummaryTokens: number;
  /** Room kept for the summary that will replace the cut part. */
  summaryRoom: number;
  /**
   * A compaction the person asked for moves its cut later (keeping less than keepRecentTokens) until at least this
   * much is summarized, so the summary does not replace less than it costs. 0 (automatic compaction) keeps the cut.
   */
  minimumSummarized?: number;
}

/**
 * Where a summary cuts, as the plan decided it: the summarizer, its appendix, the entry it becomes and the measure of
 * the context after all read this instead of deriving it again (two derivations drift: a request sent twice).
 */
export interface Cut {
  /** First entry kept verbatim after the summary; null when nothing is kept (a hand-off). */
  firstKeptEntryId: string | null;
  /** The cut falls inside a turn: the turn's head is summarized apart and its request is carried verbatim. */
  splitsTurn: boolean;
  /** The request sent verbatim right after the summary (the turn the cut falls into); null when none is. */
  carriedRequestId: string | null;
}

/** What a hand-off's summary stands in for: everything, with nothing kept or carried after it. */
export const HANDOFF_CUT: Cut = { firstKeptEntryId: null, splitsTurn: false, carriedRequestId: null };

export interface CutPlan extends Cut {
  /** The context (fixed + summary + messages) is above the usable budget right now. */
  needed: boolean;
  /**
   * Entries replaced by the summary, oldest first: what a drop undo brought back from behind the previous summary
   * (no summary covers it yet), then the whole turns before the cut.
   */
  summarizeEntryIds: string[];
  /** When the cut falls inside a turn: that turn's head, summarized separately. */
  turnPrefixEntryIds: string[];
  tokensToSummarize: number;
  tokensKept: number;
  /** What is kept had to be cut below keepRecentTokens to leave room after compaction. */
  shrunk: boolean;
  /** tokensKept leaves new turns room after compaction (at most half of what summary and fixed prompt leave). */
  fits: boolean;
  /** An estimate of the smallest context any compaction could leave (fixed prompt, summary room, newest step); the runner measures it. */
  minimumAfter: number;
  /**
   * The request the summarized part ends in (the request of the turn its last message belongs to, while it is sent):
   * the summary's appendix names it, or says it is carried when the cut splits its turn. Null when none is sent.
   */
  lastRequestId: string | null;
  /** The latest possible cut: keeping only from here is the most a compaction can free. */
  lastCutEntryId: string | null;
  /** That latest cut as data (what the smallest possible context after is measured with). */
  lastCut: Cut | null;
}

/** A compaction must bring the context below this share of its size before, or it failed. */
export const MIN_SHRINK_RATIO = 0.9;

/**
 * valid[j] is true when cutting before messages[j] keeps every tool pair on one side: messages[j] is
 * a user or assistant message (never a tool result) and no call before j has its result at or after j.
 * Index 0 is never a cut (nothing would be summarized).
 */
export function validCuts(messages: readonly MessageEntry[]): boolean[] {
  const n = messages.length;
  const callIndex = new Map<string, number>();
  // spanning > 0 at j when some tool pair starts before j and ends at or after j.
  const delta = new Array<number>(n + 1).fill(0);
  messages.forEach((entry, index) => {
    if (entry.type === 'assistant') for (const call of entry.toolCalls) callIndex.set(call.id, index);
    if (entry.type === 'toolResult') {
      const from = callIndex.get(entry.toolCallId);
      if (from !== undefined && from < index) {
        delta[from + 1] = (delta[from + 1] ?? 0) + 1;
        delta[index + 1] = (delta[index + 1] ?? 0) - 1;
      }
    }
  });
  const valid = new Array<boolean>(n).fill(false);
  let spanning = 0;
  for (let j = 0; j < n; j++) {
    spanning += delta[j] ?? 0;
    const type = messages[j]?.type;
    valid[j] = j > 0 && spanning === 0 && (type === 'user' || type === 'assistant');
  }
  return valid;
}

/** Kept history may take half of what the summary and the fixed prompt leave, so new turns have room too. */
export function maxKeptTokens(options: CutOptions): number {
  return Math.max(0, Math.floor((options.usable - options.fixedTokens - options.summaryRoom) / 2));
}

function lastUserBefore(messages: readonly MessageEntry[], index: number): number {
  for (let j = index; j >= 0; j--) if (messages[j]?.type === 'user') return j;
  return -1;
}

/** A cut at `j` would leave a turn's request alone before it (that request is carried verbatim anyway). */
function afterRequestAlone(messages: readonly MessageEntry[], j: number): boolean {
  const previous = messages[j - 1];
  return previous?.type === 'user' && !previous.synthetic && messages[j]?.type !== 'user';
}

/** Where the newest keepRecentTokens begin, moved to a turn start, or split inside an oversized turn. */
function chooseCut(messages: readonly MessageEntry[], suffix: readonly number[], valid: readonly boolean[], keep: number): number {
  const n = messages.length;
  let threshold = 0;
  for (let i = n - 1; i >= 0; i--) {
    if ((suffix[i] ?? 0) >= keep) {
      threshold = i;
      break;
    }
  }
  const turnStart = lastUserBefore(messages, threshold);
  let turnEnd = n;
  for (let j = threshold + 1; j < n; j++) {
    if (messages[j]?.type === 'user') {
      turnEnd = j;
      break;
    }
  }
  const turnTokens = (suffix[Math.max(0, turnStart)] ?? 0) - (suffix[turnEnd] ?? 0);
  const startIsCut = turnStart >= 1 && valid[turnStart] === true;
  if (startIsCut && turnTokens <= keep) return turnStart;
  // A cut right after the turn's request would summarize nothing but that request, which is carried verbatim
  // anyway: the summary would only add tokens. Such a cut is never chosen inside a turn.
  for (let j = threshold; j > Math.max(turnStart + 1, 0); j--) {
    if (messages[j]?.type === 'assistant' && valid[j]) return j;
  }
  if (startIsCut) return turnStart;
  for (let j = threshold + 1; j < n; j++) if (valid[j] && !afterRequestAlone(messages, j)) return j;
  return -1;
}

/** Moves the cut later until what is kept fits `limit`, or to the last possible cut. */
function shrinkCut(cut: number, suffix: readonly number[], valid: readonly boolean[], limit: number): number {
  if ((suffix[cut] ?? 0) <= limit) return cut;
  let last = cut;
  for (let j = cut + 1; j < valid.length; j++) {
    if (!valid[j]) continue;
    if ((suffix[j] ?? 0) <= limit) return j;
    last = j;
  }
  return last;
}

/**
 * Moves the cut later until what is summarized reaches `minimum` tokens or the last cut is reached; never to a cut
 * right after a request (that prefix would be the request alone, which is carried verbatim anyway).
 */
function summarizeEnough(cut: number, messages: readonly MessageEntry[], suffix: readonly number[], valid: readonly boolean[], minimum: number): number {
  const total = suffix[0] ?? 0;
  if (minimum <= 0 || total - (suffix[cut] ?? 0) >= minimum) return cut;
  let best = cut;
  for (let j = cut + 1; j < valid.length; j++) {
    if (!valid[j]) continue;
    if (afterRequestAlone(messages, j)) continue;
    best = j;
    if (total - (suffix[j] ?? 0) >= minimum) return j;
  }
  return best;
}

/** Tokens an entry costs in the prompt as it is sent now (pruned results cost their placeholder). */
function entryCost(entry: MessageEntry, costs: EntryCosts, pruned: ReadonlySet<string>): number {
  if (pruned.has(entry.id)) return costs.pruned.get(entry.id) ?? 0;
  return costs.full.get(entry.id) ?? 0;
}

/**
 * Candidates are only the messages the context keeps verbatim (the previous compaction's kept part and after, as
 * the context builder defines it); the previous summary is the summarizer's input, not something to cut across.
 * Returns null when there is nothing to compact.
 */
export function planCompaction(path: readonly SessionEntry[], costs: EntryCosts, options: CutOptions): CutPlan | null {
  const parts = contextParts(path);
  const messages = parts.kept;
  const n = messages.length;
  if (n < 2) return null;
  const pruned = prunedToolResultIds(path);
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] ?? 0) + entryCost(messages[i] as MessageEntry, costs, pruned);
  const valid = validCuts(messages);
  const lastCut = valid.lastIndexOf(true);
  if (lastCut < 1) return null;
  // A cut inside a turn carries that turn's request along verbatim: it is kept. The turns are contextTurns's, so the
  // turn the current compaction cut into has the request it carries now, and a dropped request is carried no more.
  const dropped = droppedEntryIds(path);
  const turnOf = turnByEntry(contextTurns(path));
  const requestOf = (at: number): MessageEntry | undefined => sentRequest(turnOf.get(messages[at]?.id ?? ''), dropped);
  const startsTurn = (cut: number): boolean => {
    const first = messages[cut];
    return first !== undefined && isRequest(first);
  };
  const requestAt = messages.map((_, at) => (startsTurn(at) ? undefined : requestOf(at)));
  const carried = (cut: number): number => {
    const request = requestAt[cut];
    return request ? entryCost(request, costs, pruned) : 0;
  };
  const keptFrom = suffix.map((tokens, cut) => tokens + carried(cut));
  const limit = maxKeptTokens(options);
  const chosen = chooseCut(messages, keptFrom, valid, Math.min(options.keepRecentTokens, limit));
  if (chosen < 1) return null;
  const cut = summarizeEnough(shrinkCut(chosen, keptFrom, valid, limit), messages, suffix, valid, options.minimumSummarized ?? 0);
  const turnStart = messages[cut]?.type === 'user' ? cut : lastUserBefore(messages, cut);
  const prefixStart = turnStart >= 1 && turnStart < cut ? turnStart : cut;
  const ids = (from: number, to: number): string[] => messages.slice(from, to).map((entry) => entry.id);
  const restoredTokens = parts.restored.reduce((sum, entry) => sum + entryCost(entry, costs, pruned), 0);
  const total = suffix[0] ?? 0;
  // The request an earlier compaction carries, and what a drop undo brought back, are sent now too, before the span.
  const sentNow = total + (parts.carried ? entryCost(parts.carried, costs, pruned) : 0) + restoredTokens;
  const cutData = (at: number): Cut => {
    const splits = !startsTurn(at);
    return { firstKeptEntryId: messages[at]?.id ?? null, splitsTurn: splits, carriedRequestId: splits ? (requestAt[at]?.id ?? null) : null };
  };
  const chosenCut = cutData(cut);
  return {
    needed: options.fixedTokens + options.currentSummaryTokens + sentNow > options.usable,
    ...chosenCut,
    lastRequestId: chosenCut.splitsTurn ? chosenCut.carriedRequestId : (requestOf(cut - 1)?.id ?? null),
    summarizeEntryIds: [...parts.restored.map((entry) => entry.id), ...ids(0, prefixStart)],
    turnPrefixEntryIds: ids(prefixStart, cut),
    tokensToSummarize: restoredTokens + total - (suffix[cut] ?? 0),
    tokensKept: keptFrom[cut] ?? 0,
    shrunk: cut > chosen,
    fits: (keptFrom[cut] ?? 0) <= limit,
    minimumAfter: options.fixedTokens + options.summaryRoom + (keptFrom[lastCut] ?? 0),
    lastCutEntryId: messages[lastCut]?.id ?? null,
    lastCut: cutData(lastCut),
  };
}

/**
 * Automatic compaction is allowed only when a message was appended since the latest compaction;
 * otherwise compacting again would summarize the same content in a loop.
 */
export function hasNewContentSinceCompaction(path: readonly SessionEntry[]): boolean {
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index];
    if (!entry) continue;
    if (entry.type === 'compaction') return false;
    if (isMessageEntry(entry) && !(entry.type === 'user' && entry.synthetic)) return true;
  }
  return true;
}

/**
 * An error message when the compaction did not shrink the context meaningfully, else null. With `room` (the usable
 * budget), a compaction that leaves the context within it is accepted however little it freed: at a small window a
 * long request carried verbatim can leave little to summarize, and stopping the request there loses every step
 * after it (issue 36: 35 recorded calls of unseen sessions at 8k), while the next call fits. The loop guard still
 * stops a request that compacts twice without a step in between.
 */
export function shrinkProblem(tokensBefore: number, tokensAfter: number, room?: number): string | null {
  if (tokensAfter <= tokensBefore * MIN_SHRINK_RATIO) return null;
  if (room !== undefined && tokensAfter <= room) return null;
  return `Compaction did not shrink the context enough (${tokensBefore.toLocaleString('en-US')} → ${tokensAfter.toLocaleString('en-US')} tokens); not retrying automatically. Pin fewer messages, lower compactionAgent.compaction.keepRecentTokens, or use a model with a larger window.`;
}
