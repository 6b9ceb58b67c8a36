// Proposes a compaction (cut plan + summary) and applies it as a CompactionEntry; shared by the loop, /compact and the UI.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { compactAtTokens } from '../budget/budget';
import { explainNoRoom } from '../budget/roomReport';
import { planCompaction } from '../compaction/cutPlan';
import type { SummarizeResult } from '../compaction/summarizer';
import { summaryMessageText } from '../context/contextBuilder';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import type { TokenCounter } from '../tokens/tokenCounter';
import { estimateTokens } from '../tokens/tokenCounter';
import type { AgentLog } from './agentLog';

/**
 * What the summarizer is given: the entries to replace. What the previous compaction said (its summary,
 * split-turn summary, file ledger, pins and the user's request) the summarizer reads from the session path
 * itself, the one place that holds all of it.
 */
export interface SummarizeRequest {
  entries: MessageEntry[];
  /** Head of a turn cut in the middle, summarized separately (empty when the cut is at a turn start). */
  turnPrefixEntries: MessageEntry[];
  instructions?: string;
  /** Most tokens the summary may take, in the summarizer's count (the window's summary threshold). */
  maxSummaryTokens: number;
  signal: AbortSignal;
}

/** What a summarizer returns: the summarizer's own result type, so the two can never drift apart. */
export type { SummarizeResult };

export type SummarizeFn = (request: SummarizeRequest) => Promise<SummarizeResult>;

export interface EntrySize {
  id: string;
  type: MessageEntry['type'];
  tokens: number;
}

/** Every token figure is in the endpoint's units, as the meter measured them. */
export interface CompactionProposal extends SummarizeResult {
  firstKeptEntryId: string | null;
  summarized: EntrySize[];
  kept: EntrySize[];
  tokensBefore: number;
  /** Estimated context after applying (fixed prompt + summary message + kept entries). */
  tokensAfter: number;
  /** System prompt and tool definitions: part of every call. */
  fixedTokens: number;
  keptTokens: number;
  /** The meter's content ratio when proposed, so applying counts the (maybe edited) summary in the same units. */
  contentRatio: number;
  /** The leaf the proposal was made on; applying refuses when the session moved on since. */
  leafId: string | null;
  instructions?: string;
}

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

function sizes(ids: readonly string[], byId: ReadonlyMap<string, MessageEntry>, measured: MeasuredContext): EntrySize[] {
  return ids.flatMap((id) => {
    const entry = byId.get(id);
    return entry ? [{ id, type: entry.type, tokens: measured.costs.full.get(id) ?? 0 }] : [];
  });
}

/**
 * Null when there is nothing to compact (too little history, or it fits and force is not set). Throws
 * NoRoomError before any summary is paid for when even the newest step alone would not fit.
 */
/** The person's standing instructions (compaction.customInstructions), then those given for this compaction. */
function summaryInstructions(standing: string, given: string | undefined): string | undefined {
  const parts = [standing.trim(), given?.trim() ?? ''].filter((part) => part !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

export async function proposeCompaction(log: AgentLog, options: ProposeOptions): Promise<CompactionProposal | null> {
  const path = log.path();
  const measured = measureContext(path, options);
  const { budget, thresholds } = measured;
  const fixedTokens = budget.breakdown.system + budget.breakdown.instructions + budget.breakdown.tools;
  const plan = planCompaction(path, measured.costs, {
    keepRecentTokens: thresholds.keepRecent,
    // With a trigger percent set, the plan aims below the trigger, so the next turn does not compact again.
    usable: compactAtTokens(budget, thresholds, options.settings.compaction.triggerPercent),
    fixedTokens,
    currentSummaryTokens: budget.breakdown.summary,
    summaryRoom: thresholds.summaryTokens,
  });
  const over = budget.used > budget.usable;
  if (over && (!plan || plan.minimumAfter > budget.usable)) throw new NoRoomError(explainNoRoom(measured, plan?.minimumAfter));
  if (!plan || (!plan.needed && !over && !options.force)) return null;
  if (plan.summarizeEntryIds.length + plan.turnPrefixEntryIds.length === 0) return null;
  const byId = new Map(path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  const pick = (ids: readonly string[]): MessageEntry[] => ids.flatMap((id) => byId.get(id) ?? []);
  const result = await options.summarize({
    entries: pick(plan.summarizeEntryIds),
    turnPrefixEntries: pick(plan.turnPrefixEntryIds),
    instructions: summaryInstructions(options.settings.compaction.customInstructions, options.instructions),
    maxSummaryTokens: thresholds.summaryTokens,
    signal: options.signal,
  });
  const keptIds = plan.firstKeptEntryId === null ? [] : contextIdsFrom(path, plan.firstKeptEntryId);
  const contentRatio = options.calibration?.contentRatio ?? 1;
  const summaryTokens = countSummary(result.summary, result.turnPrefixSummary, contentRatio, options.counter);
  return {
    ...result,
    firstKeptEntryId: plan.firstKeptEntryId,
    summarized: sizes([...plan.summarizeEntryIds, ...plan.turnPrefixEntryIds], byId, measured),
    kept: sizes(keptIds, byId, measured),
    tokensBefore: budget.used,
    tokensAfter: fixedTokens + summaryTokens + plan.tokensKept,
    fixedTokens,
    keptTokens: plan.tokensKept,
    contentRatio,
    leafId: log.leafId,
    instructions: options.instructions,
  };
}

function contextIdsFrom(path: readonly SessionEntry[], firstKeptEntryId: string): string[] {
  const start = path.findIndex((entry) => entry.id === firstKeptEntryId);
  return start < 0 ? [] : path.slice(start).filter(isMessageEntry).map((entry) => entry.id);
}

/** Tokens of the user message that carries the summary, in the endpoint's units (estimated without a counter). */
function countSummary(summary: string, turnPrefixSummary: string | undefined, contentRatio: number, counter?: TokenCounter): number {
  const probe = { type: 'compaction', summary, turnPrefixSummary } as CompactionEntry;
  const text = summaryMessageText(probe);
  const raw = counter ? counter.countMessage({ role: 'user', content: text }) : estimateTokens(text) + 4;
  return Math.round(raw * contentRatio);
}

export interface ApplyOptions {
  summary: string;
  edited: boolean;
  auto: boolean;
  instructions?: string;
  model?: string;
  counter?: TokenCounter;
}

/**
 * True when the session only gained pins, unpins or labels since `leafId`: what a person does in the panel
 * while a summary waits for review. The proposal still holds (a pinned entry is re-sent verbatim anyway).
 */
function onlyMarkedSince(log: AgentLog, leafId: string | null): boolean {
  const path = log.path();
  const at = leafId === null ? -1 : path.findIndex((entry) => entry.id === leafId);
  if (leafId !== null && at < 0) return false;
  return path.slice(at + 1).every((entry) => entry.type === 'pin' || entry.type === 'label');
}

/** Appends the CompactionEntry; rejects when the conversation moved on since the proposal or the summary is empty. */
export async function applyCompaction(log: AgentLog, proposal: CompactionProposal, options: ApplyOptions): Promise<CompactionEntry> {
  if (!onlyMarkedSince(log, proposal.leafId)) throw new Error('The session changed since this compaction was proposed; propose it again.');
  if (options.summary.trim() === '') throw new Error('The compaction summary is empty; nothing was applied.');
  const summaryTokens = countSummary(options.summary, proposal.turnPrefixSummary, proposal.contentRatio, options.counter);
  const entry = await log.append({
    type: 'compaction',
    summary: options.summary,
    firstKeptEntryId: proposal.firstKeptEntryId,
    ...(proposal.turnPrefixSummary !== undefined ? { turnPrefixSummary: proposal.turnPrefixSummary } : {}),
    tokensBefore: proposal.tokensBefore,
    tokensAfter: proposal.fixedTokens + summaryTokens + proposal.keptTokens,
    files: proposal.files,
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    edited: options.edited,
    auto: options.auto,
    ...(options.model !== undefined ? { model: options.model } : {}),
  });
  return entry as CompactionEntry;
}
