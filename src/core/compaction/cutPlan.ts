// Plans hard compaction: where to cut the context so the newest turns stay verbatim and the rest is summarized.
import { contextSpan } from '../budget/pathState';
import { prunedToolResultIds } from '../context/contextMarkers';
import type { MessageEntry, SessionEntry } from '../session/entries';
import type { EntryCounts } from '../tokens/entryTokens';
import { validCuts } from './cutPoints';

export interface CutOptions {
  keepRecentTokens: number;
  /** Usable prompt budget (window − reserve). */
  usable: number;
  /** System prompt + tool definitions, present in every call. */
  fixedTokens?: number;
  /** Room kept for the summary that will replace the cut part (and for the current one, for `needed`). */
  summaryTokens?: number;
}

export interface CutPlan {
  /** The context (fixed + summary + messages) is above the usable budget right now. */
  needed: boolean;
  firstKeptEntryId: string | null;
  /** Entries replaced by the summary (whole turns, oldest first). */
  summarizeEntryIds: string[];
  /** When the cut falls inside a turn: that turn's head, summarized separately. */
  turnPrefixEntryIds: string[];
  tokensToSummarize: number;
  tokensKept: number;
  /** What is kept had to be cut below keepRecentTokens to leave room after compaction. */
  shrunk: boolean;
  /** tokensKept fits the post-compaction limit; false when even the last turn/step alone is bigger. */
  fits: boolean;
}

/** Tokens an entry costs in the prompt as it is sent now (pruned results cost their placeholder). */
function entryCost(entry: MessageEntry, counts: EntryCounts, pruned: ReadonlySet<string>): number {
  if (pruned.has(entry.id)) return counts.pruned.get(entry.id) ?? 0;
  return counts.full.get(entry.id) ?? 0;
}

/**
 * Kept history may take half of what the summary and the fixed prompt leave, so new turns have room
 * too and compaction does not fire again on the next turn.
 */
export function maxKeptTokens(options: CutOptions): number {
  return Math.max(0, Math.floor((options.usable - (options.fixedTokens ?? 0) - (options.summaryTokens ?? 0)) / 2));
}

function lastUserBefore(messages: readonly MessageEntry[], index: number): number {
  for (let j = index; j >= 0; j--) if (messages[j]?.type === 'user') return j;
  return -1;
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
  for (let j = threshold; j > Math.max(turnStart, 0); j--) {
    if (messages[j]?.type === 'assistant' && valid[j]) return j;
  }
  if (startIsCut) return turnStart;
  for (let j = threshold + 1; j < n; j++) if (valid[j]) return j;
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
 * Candidates are only the messages in context (the previous compaction's kept part and after); the
 * previous summary is the summarizer's input, not something to cut across. The cut never separates
 * a tool call from its results. Returns null when there is nothing to compact.
 */
export function planCompaction(path: readonly SessionEntry[], counts: EntryCounts, options: CutOptions): CutPlan | null {
  const { messages } = contextSpan(path);
  const n = messages.length;
  if (n < 2) return null;
  const pruned = prunedToolResultIds(path);
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] ?? 0) + entryCost(messages[i]!, counts, pruned);
  const valid = validCuts(messages);
  const limit = maxKeptTokens(options);
  const keep = Math.min(options.keepRecentTokens, limit);
  const chosen = chooseCut(messages, suffix, valid, keep);
  if (chosen < 1) return null;
  const cut = shrinkCut(chosen, suffix, valid, limit);
  const turnStart = messages[cut]?.type === 'user' ? cut : lastUserBefore(messages, cut);
  const prefixStart = turnStart >= 1 && turnStart < cut ? turnStart : cut;
  const ids = (from: number, to: number): string[] => messages.slice(from, to).map((entry) => entry.id);
  const total = suffix[0] ?? 0;
  return {
    needed: (options.fixedTokens ?? 0) + (options.summaryTokens ?? 0) + total > options.usable,
    firstKeptEntryId: messages[cut]?.id ?? null,
    summarizeEntryIds: ids(0, prefixStart),
    turnPrefixEntryIds: ids(prefixStart, cut),
    tokensToSummarize: total - (suffix[cut] ?? 0),
    tokensKept: suffix[cut] ?? 0,
    shrunk: cut > chosen,
    fits: (suffix[cut] ?? 0) <= limit,
  };
}
