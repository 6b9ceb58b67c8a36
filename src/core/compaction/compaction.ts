// Compaction, stage 3 (propose: summarize at the planned cut, measure the context after) and the entry stage 4 appends.
//
// Reading order: cutPlan.ts (1. plan: where to cut, as data) → summaryTranscript.ts, summaryPrompt.ts, summaryAppendix.ts,
// summaryRequest.ts and summarizer.ts (2. summarize: what the model is sent, each request fitted in one step) → this file
// (3. propose) → applyProposal.ts (4. apply: the one path for the loop, the panel, /compact and /handoff) → handoff.ts
// and compactionUndo.ts (the same summary seeding a new session, and undoing a compaction). What the model sees is
// defined once, by context/contextBuilder.ts (and its turns by context/contextTurns.ts), and "how full" once, by
// budget/meter.ts: every figure here is their measure.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { compactAtTokens } from '../budget/budget';
import { explainNoRoom } from '../budget/roomReport';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import type { SessionLog } from '../session/sessionLog';
import type { Settings } from '../settings/settings';
import { fixedOf, measureAfter, minimumAfter, pinsAfter, sentSizes, sizes, withPinsNow, type CompactionDraft, type EntrySize } from './contextAfter';
import { planCompaction, type Cut, type CutPlan } from './cutPlan';
import type { SummarizeFn, SummarizeRequest, SummarizeResult } from './summarizer';

/** What a summarizer is given and returns: the summarizer's own types, so the two can never drift apart. */
export type { SummarizeFn, SummarizeRequest, SummarizeResult };
/** The figures a proposal shows, measured by contextAfter.ts. */
export type { EntrySize };

/** The part of a session log compaction needs (the agent loop's log conforms to it). */
export type CompactionLog = Pick<SessionLog, 'append' | 'path' | 'tree' | 'leafId'>;

/**
 * Every token figure is in the endpoint's units, as the meter measures them. "After" is never added up by
 * hand: it is the meter's measure of the context that would be sent once the summary is in place (system
 * prompt, tools, summary with its appendix, pinned exchanges, the carried request, the kept turns). The cut
 * is the plan's, carried along as data to the entry the proposal becomes.
 */
export interface CompactionProposal extends SummarizeResult, Cut {
  /** Set for a hand-off: applying starts a new session seeded with the summary, the source stays as it is. */
  handoff?: boolean;
  /** What the summary replaces, as planned: Regenerate summarizes the same again, at the same cut. */
  replaces: Replaced;
  /** The pinned messages the summary's appendix names as re-sent after it (applying names the pins of that moment). */
  pinnedIds: string[];
  summarized: EntrySize[];
  /** Every message the context keeps after applying (pins and the carried request included), in order. */
  kept: EntrySize[];
  tokensBefore: number;
  /** The measured context after applying this summary (see measureAfter). */
  tokensAfter: number;
  /** System prompt, instruction files and tool definitions: part of every call. */
  fixedTokens: number;
  /** Pinned, carried and kept messages after applying. */
  keptTokens: number;
  /** The leaf the proposal was made on; applying refuses when the session moved on since. */
  leafId: string | null;
  instructions?: string;
}

/** What a summary replaces, decided by the plan (or, for a hand-off, everything sent): the summarizer's input as ids. */
export interface Replaced {
  entryIds: string[];
  /** The head of the turn the cut splits, summarized apart. */
  turnPrefixEntryIds: string[];
  /** The request the replaced part ends in (see CutPlan.lastRequestId). */
  lastRequestId: string | null;
}

// ─── 3. Propose: summarize at the planned cut, measure what would be sent after ───
export interface ProposeOptions extends CountingDeps {
  summarize: SummarizeFn;
  signal: AbortSignal;
  instructions?: string;
  /** Compact even when the context still fits (manual /compact, overflow reported by the endpoint). */
  force?: boolean;
}

/** Compacting cannot make the context fit: nothing was summarized (no tokens spent), the message says what is too big. */
export class NoRoomError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoRoomError';
  }
}

/** The person's standing instructions (compaction.customInstructions), then those given for this compaction. */
export function summaryInstructions(standing: string, given: string | undefined): string | undefined {
  const parts = [standing.trim(), given?.trim() ?? ''].filter((part) => part !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** The cut plan for `path` as the meter measures it (the trigger percent lowers the target: no compaction loop). */
function planFor(path: readonly SessionEntry[], measured: MeasuredContext, settings: Settings, force: boolean): CutPlan | null {
  const { budget, thresholds } = measured;
  return planCompaction(path, measured.costs, {
    keepRecentTokens: thresholds.keepRecent,
    // With a trigger percent set, the plan aims below the trigger, so the next turn does not compact again.
    usable: compactAtTokens(budget, thresholds, settings.compaction.triggerPercent),
    fixedTokens: fixedOf(measured),
    currentSummaryTokens: budget.breakdown.summary,
    summaryRoom: thresholds.summaryTokens,
    // Asked for by the person: summarize at least as much as a summary may cost, or it would only add tokens.
    minimumSummarized: force ? thresholds.summaryTokens : 0,
  });
}

/**
 * Null when there is nothing to compact (too little history, or it fits and force is not set). Throws
 * NoRoomError before any summary is paid for when even the newest step alone would not fit.
 */
export async function proposeCompaction(log: CompactionLog, options: ProposeOptions): Promise<CompactionProposal | null> {
  const path = log.path();
  const measured = measureContext(path, options);
  const { budget } = measured;
  const plan = planFor(path, measured, options.settings, options.force ?? false);
  const over = budget.used > budget.usable;
  if (over) {
    const minimum = plan ? minimumAfter(path, plan.lastCut, options) : undefined;
    if (minimum === undefined || minimum > budget.usable) throw new NoRoomError(explainNoRoom(measured, minimum));
  }
  if (!plan || (!plan.needed && !over && !options.force)) return null;
  if (plan.summarizeEntryIds.length + plan.turnPrefixEntryIds.length === 0) return null;
  const cut: Cut = { firstKeptEntryId: plan.firstKeptEntryId, splitsTurn: plan.splitsTurn, carriedRequestId: plan.carriedRequestId };
  return summarizeAt(log, measured, cut, { entryIds: plan.summarizeEntryIds, turnPrefixEntryIds: plan.turnPrefixEntryIds, lastRequestId: plan.lastRequestId }, options);
}

/**
 * The proposal a review holds, summarized again (Regenerate, with the instructions given now): the same cut and the
 * same entries, never planned anew, so what the person approves replaces exactly what the first proposal said it
 * would. Refuses when the session moved on since (pins and labels aside).
 */
export async function proposeAgain(log: CompactionLog, proposal: CompactionProposal, options: Omit<ProposeOptions, 'force'>): Promise<CompactionProposal> {
  if (proposal.handoff) throw new Error('A hand-off summary is proposed again from the context as it is (proposeHandoff).');
  if (!onlyMarkedSince(log, proposal.leafId)) throw new Error('The session changed since this compaction was proposed; propose it again.');
  const path = log.path();
  return summarizeAt(log, measureContext(path, options), proposal, proposal.replaces, options);
}

/** Summarizes what `replaces` names for a summary at `cut`, and measures the context that would be sent after it. */
async function summarizeAt(log: CompactionLog, measured: MeasuredContext, at: Cut, replaces: Replaced, options: Omit<ProposeOptions, 'force'>): Promise<CompactionProposal> {
  const path = measured.path;
  const cut: Cut = { firstKeptEntryId: at.firstKeptEntryId, splitsTurn: at.splitsTurn, carriedRequestId: at.carriedRequestId };
  const byId = new Map(path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  const pick = (ids: readonly string[]): MessageEntry[] => ids.flatMap((id) => byId.get(id) ?? []);
  const pinned = pinsAfter(path, cut);
  const last = replaces.lastRequestId === null ? undefined : byId.get(replaces.lastRequestId);
  const result = await options.summarize({
    cut,
    entries: pick(replaces.entryIds),
    turnPrefixEntries: pick(replaces.turnPrefixEntryIds),
    pinned,
    lastRequest: last?.type === 'user' ? last : null,
    instructions: summaryInstructions(options.settings.compaction.customInstructions, options.instructions),
    maxSummaryTokens: measured.thresholds.summaryTokens,
    signal: options.signal,
  });
  const after = measureAfter(path, { ...result, ...cut }, options);
  return {
    ...result,
    ...cut,
    replaces,
    pinnedIds: pinned.map((entry) => entry.id),
    summarized: sizes([...replaces.entryIds, ...replaces.turnPrefixEntryIds], byId, measured),
    kept: sentSizes(after),
    tokensBefore: measured.budget.used,
    tokensAfter: after.budget.used,
    fixedTokens: fixedOf(after),
    keptTokens: after.budget.breakdown.messages + after.budget.breakdown.toolResults,
    leafId: log.leafId,
    instructions: options.instructions,
  };
}
// ─── 4. Apply a compaction: one CompactionEntry, recording the plan's cut (applyProposal.ts is the path every caller takes) ───

export interface ApplyOptions {
  summary: string;
  edited: boolean;
  auto: boolean;
  instructions?: string;
  model?: string;
  /** How the (maybe edited) summary is measured: the entry records the measured context after it. */
  deps: CountingDeps;
}

/**
 * True when the session only gained pins, unpins or labels since `leafId`: what a person does in the panel
 * while a summary waits for review. The proposal still holds (a pinned entry is re-sent verbatim anyway).
 */
export function onlyMarkedSince(log: Pick<CompactionLog, 'path'>, leafId: string | null): boolean {
  const path = log.path();
  const at = leafId === null ? -1 : path.findIndex((entry) => entry.id === leafId);
  if (leafId !== null && at < 0) return false;
  return path.slice(at + 1).every((entry) => entry.type === 'pin' || entry.type === 'label');
}

/** Appends the CompactionEntry; rejects when the conversation moved on since the proposal or the summary is empty. */
export async function applyCompaction(log: CompactionLog, proposal: CompactionProposal, options: ApplyOptions): Promise<CompactionEntry> {
  if (!onlyMarkedSince(log, proposal.leafId)) throw new Error('The session changed since this compaction was proposed; propose it again.');
  if (options.summary.trim() === '') throw new Error('The compaction summary is empty; nothing was applied.');
  const draft: CompactionDraft = {
    summary: options.summary,
    firstKeptEntryId: proposal.firstKeptEntryId,
    splitsTurn: proposal.splitsTurn,
    carriedRequestId: proposal.carriedRequestId,
    files: proposal.files,
    ...(proposal.turnPrefixSummary !== undefined ? { turnPrefixSummary: proposal.turnPrefixSummary } : {}),
  };
  // Pins made while the summary waited change what is sent after it: named in its appendix, and measured again.
  const path = log.path();
  const summary = withPinsNow(options.summary, proposal.pinnedIds, pinsAfter(path, draft), options.deps);
  const tokensAfter = summary === proposal.summary && log.leafId === proposal.leafId ? proposal.tokensAfter : measureAfter(path, { ...draft, summary }, options.deps).budget.used;
  const entry = await log.append({
    type: 'compaction',
    summary,
    firstKeptEntryId: proposal.firstKeptEntryId,
    carriedRequestId: proposal.carriedRequestId,
    ...(proposal.turnPrefixSummary !== undefined ? { turnPrefixSummary: proposal.turnPrefixSummary } : {}),
    tokensBefore: proposal.tokensBefore,
    tokensAfter,
    files: proposal.files,
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    edited: options.edited,
    auto: options.auto,
    ...(options.model !== undefined ? { model: options.model } : {}),
  });
  return entry as CompactionEntry;
}
