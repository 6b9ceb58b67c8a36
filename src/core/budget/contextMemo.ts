// Incremental context counting: the sums of a path's context are memoized at its leaf, so the next turn adds only its new entries.
import { BROUGHT_BACK_NOTE } from '../context/contextMarkers';
import { repairToolPairs, type ContextItem } from '../context/toolPairRepair';
import type { SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import type { EntryCounts } from '../tokens/entryTokens';
import { PathCountMap } from '../tokens/pathCounts';
import type { TokenCounter } from '../tokens/tokenCounter';

/** Running sums of the context body (everything but the system prompt, tools and reply priming). */
export interface BodyState {
  summary: number;
  messages: number;
  toolResults: number;
  /** The newest usable usage report and the body tokens sent before it. */
  report: { promptTokens: number; before: number } | null;
}

type Reports = (entryId: string) => number | undefined;

interface ContextMemo {
  end: number;
  endEntry: SessionEntry;
  /** Path index from which entries are re-read on the next turn (the items before it are final). */
  settled: number;
  state: BodyState;
  /** changedAfterLastReport of path[0..settled). */
  changed: boolean;
  /** The request buildContext carried after the summary (its presence depends on whether its turn is open). */
  carried: string | null;
}

/** An unanswered call this close to the leaf may still get its result: the memo settles before it. */
const OPEN_CALL_WINDOW = 64;
/** Walking further back than this to find a memo costs more than it saves. */
const MAX_WALK = 512;

function isMarker(entry: SessionEntry | undefined): boolean {
  return entry?.type === 'prune' || entry?.type === 'drop' || entry?.type === 'pin' || entry?.type === 'compaction';
}

/** The summary message's tokens from the path's store (counted once per compaction), when the counts are a path view. */
/**
 * The cached count of a compaction's summary message, when the item sends it as written: with a drop undone after it,
 * the message ends in BROUGHT_BACK_NOTE and is counted as it is (the cache holds the plain text's count only).
 */
function summaryTokens(counts: EntryCounts, item: ContextItem, compactionId: string): number | undefined {
  if (typeof item.message.content !== 'string' || item.message.content.endsWith(BROUGHT_BACK_NOTE)) return undefined;
  return counts.full instanceof PathCountMap ? counts.full.summaryTokens(compactionId) : undefined;
}

/** Synthetic repairs (a cancelled call's stand-in result) and noted summaries repeat the same few texts: counted once per counter, role and text. */
const syntheticCounts = new WeakMap<TokenCounter, Map<string, number>>();

function countUncached(counter: TokenCounter, item: ContextItem): number {
  const message = item.message;
  // Stand-in results and summaries with the brought-back note repeat the same texts turn after turn.
  const repeated = (item.kind === 'synthetic' && message.role === 'tool') || item.kind === 'summary';
  if (!repeated || typeof message.content !== 'string') return counter.countMessage(message);
  let known = syntheticCounts.get(counter);
  if (!known) {
    known = new Map();
    syntheticCounts.set(counter, known);
  }
  const key = `${message.role}\u0000${message.content}`;
  let tokens = known.get(key);
  if (tokens === undefined) {
    if (known.size >= 64) known.clear();
    tokens = counter.countMessage(message);
    known.set(key, tokens);
  }
  return tokens;
}

/** Adds the items' tokens to the body sums. */
export function addItems(state: BodyState, items: readonly ContextItem[], counts: EntryCounts, counter: TokenCounter, reports: Reports): void {
  for (const item of items) {
    const report = item.entryId !== undefined && item.kind === 'entry' ? reports(item.entryId) : undefined;
    if (report !== undefined) state.report = { promptTokens: report, before: state.summary + state.messages + state.toolResults };
    const cached = item.entryId === undefined ? undefined : item.kind === 'summary' ? summaryTokens(counts, item, item.entryId) : (item.pruned ? counts.pruned : counts.full).get(item.entryId);
    const tokens = item.kind === 'synthetic' || cached === undefined ? countUncached(counter, item) : cached;
    if (item.kind === 'summary') state.summary += tokens;
    else if (item.message.role === 'tool') state.toolResults += tokens;
    else if (item.kind !== 'system') state.messages += tokens;
  }
}

/** True when a prune, drop or compaction follows the newest usable report in path[0..end). */
export function changedBefore(path: readonly SessionEntry[], end: number, isReport: (entry: SessionEntry) => boolean): boolean {
  for (let index = end - 1; index >= 0; index--) {
    const entry = path[index];
    if (!entry) continue;
    if (isReport(entry)) return false;
    if (entry.type === 'prune' || entry.type === 'drop' || entry.type === 'compaction') return true;
  }
  return false;
}

function memoKey(entryId: string, counter: TokenCounter): string {
  return `context\u0000${counter.modelId}\u0000${entryId}`;
}

/** Where the next turn resumes: before the first unanswered call near the leaf, else after the leaf. */
function settleAt(items: readonly ContextItem[], view: PathCountMap, pathLength: number): { item: number; index: number } {
  for (let at = 0; at < items.length; at++) {
    const item = items[at];
    if (item?.kind !== 'synthetic' || item.entryId === undefined) continue;
    const record = view.record(item.entryId);
    if (!record || record.index < pathLength - OPEN_CALL_WINDOW) continue;
    let owner = at;
    while (owner > 0 && items[owner]?.message.role !== 'assistant') owner--;
    return { item: owner, index: record.index };
  }
  return { item: items.length, index: pathLength };
}

/**
 * The start of the newest user turn, when every item before it comes from entries before it: a second
 * memo there lets a sibling turn (an edit, a retry, a fork) reuse the context up to the fork.
 */
function turnStart(items: readonly ContextItem[], view: PathCountMap): { item: number; index: number } | undefined {
  let at = items.length - 1;
  while (at >= 0 && !(items[at]?.kind === 'entry' && items[at]?.message.role === 'user')) at--;
  const entryId = items[at]?.entryId;
  const index = entryId === undefined ? undefined : view.record(entryId)?.index;
  if (index === undefined) return undefined;
  for (let before = 0; before < at; before++) {
    const id = items[before]?.entryId;
    const record = id === undefined ? undefined : view.record(id);
    if (record && record.index >= index) return undefined;
  }
  return { item: at, index };
}

/**
 * Records the settled sums of a context at the path's leaf (and at the newest turn's start). Returns the sums of
 * items[0..item) it added on the way (from `base` when given), so the caller adds only the rest: every item is
 * looked up once per count.
 */
export function rememberContext(view: PathCountMap, items: readonly ContextItem[], counts: EntryCounts, counter: TokenCounter, reports: Reports, isReport: (entry: SessionEntry) => boolean, carried: string | null, base?: { state: BodyState; changed: boolean; from: number }): { state: BodyState; item: number } {
  const path = view.path;
  const from = base?.from ?? 0;
  const settle = settleAt(items, view, path.length);
  const start = base ? undefined : turnStart(items, view);
  let lastMarker = -1;
  for (let index = path.length - 1; index >= from && lastMarker < 0; index--) if (isMarker(path[index])) lastMarker = index;
  const state: BodyState = base ? { ...base.state } : { summary: 0, messages: 0, toolResults: 0, report: null };
  let changed = base ? base.changed : undefined;
  let done = { item: 0, index: from };
  // A call left open before the turn start is safe to settle there: a late result for it forces a rebuild (touchesPrefix).
  const points = start && start.item !== settle.item ? [start, settle].sort((a, b) => a.item - b.item) : [settle];
  for (const point of points) {
    // A point at or before the newest marker would hold sums from before it; a later point (the leaf) still may.
    if (point.index <= lastMarker || point.index === 0) continue;
    addItems(state, items.slice(done.item, point.item), counts, counter, reports);
    if (changed === undefined) changed = changedBefore(path, point.index, isReport);
    else for (let index = done.index; index < point.index; index++) if (path[index] && isReport(path[index] as SessionEntry)) changed = false;
    const end = point === settle ? path.length : point.index;
    const endEntry = path[end - 1];
    if (!endEntry) return { state, item: point.item };
    view.store.memos.set(memoKey(endEntry.id, counter), { end, endEntry, settled: point.index, state: { ...state }, changed, carried } satisfies ContextMemo);
    done = point;
  }
  return { state, item: done.item };
}

function findMemo(view: PathCountMap, counter: TokenCounter): ContextMemo | undefined {
  const path = view.path;
  const stop = Math.max(0, path.length - MAX_WALK);
  for (let index = path.length - 1; index >= stop; index--) {
    const entry = path[index];
    if (!entry) return undefined;
    // A memo ending at a marker already holds what the marker changed; only one from before a marker is stale.
    // (Asking the marker first made every turn after a pin, drop or compaction at the leaf rebuild the whole context.)
    const memo = view.store.memos.get(memoKey(entry.id, counter)) as ContextMemo | undefined;
    if (memo && memo.endEntry === entry && memo.end === index + 1) return memo;
    if (isMarker(entry)) return undefined;
  }
  return undefined;
}

/** True when a tail entry refers to a call before the settled point (a late result or a reused call id). */
function touchesPrefix(view: PathCountMap, tail: readonly SessionEntry[], settled: number): boolean {
  const owned = (callId: string): boolean =>
    view.store.ownersOf(callId).some((owner) => owner.index < settled && view.path[owner.index] === owner.entry);
  for (const entry of tail) {
    if (entry.type === 'toolResult' && owned(entry.toolCallId)) return true;
    if (entry.type === 'assistant' && entry.toolCalls.some((call) => owned(call.id))) return true;
  }
  return false;
}

/**
 * The body sums of view.path from the memo of a path it extends: the entries after the memo's settled
 * point are repaired and summed alone. Undefined when there is no usable memo (then rebuild).
 */
export function extendContext(view: PathCountMap, counts: EntryCounts, counter: TokenCounter, reports: Reports, isReport: (entry: SessionEntry) => boolean, carried: string | null): { state: BodyState; changed: boolean } | undefined {
  const memo = findMemo(view, counter);
  // The carried request sits before the settled point: when it comes or goes, the prefix changed.
  if (!memo || memo.carried !== carried) return undefined;
  const tail = view.path.slice(memo.settled);
  if (touchesPrefix(view, tail, memo.settled)) return undefined;
  const items = repairToolPairs(tail.filter(isMessageEntry).map((entry) => ({ entry, kind: 'entry' as const })), new Set());
  const changed = tail.some(isReport) ? false : memo.changed;
  const done = rememberContext(view, items, counts, counter, reports, isReport, carried, { state: memo.state, changed: memo.changed, from: memo.settled });
  const state: BodyState = { ...done.state };
  addItems(state, items.slice(done.item), counts, counter, reports);
  return { state, changed };
}
