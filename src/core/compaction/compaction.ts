// Compaction in one place: plan the cut, summarize, propose (with the measured context after), apply; shared by the loop, /compact and the UI.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { compactAtTokens } from '../budget/budget';
import { explainNoRoom } from '../budget/roomReport';
import { buildContext } from '../context/contextBuilder';
import type { CompactionEntry, FileLedger, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { newEntryId } from '../session/newEntry';
import type { SessionLog } from '../session/sessionLog';

/** The part of a session log compaction needs (the agent loop's log conforms to it). */
export type CompactionLog = Pick<SessionLog, 'append' | 'path' | 'tree' | 'leafId'>;
import { planCompaction } from './cutPlan';
import type { SummarizeResult } from './summarizer';

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

/**
 * Every token figure is in the endpoint's units, as the meter measures them. "After" is never added up by
 * hand: it is the meter's measure of the context that would be sent once the summary is in place (system
 * prompt, tools, summary with its appendix, pinned exchanges, the carried request, the kept turns).
 */
export interface CompactionProposal extends SummarizeResult {
  firstKeptEntryId: string | null;
  /** Set for a hand-off: applying starts a new session seeded with the summary, the source stays as it is. */
  handoff?: boolean;
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

/** The compaction a proposal would append: what the context after is measured with. */
export interface CompactionDraft {
  summary: string;
  turnPrefixSummary?: string;
  firstKeptEntryId: string | null;
  files: FileLedger;
}

/**
 * The meter's measure of the context as it would be sent after appending `draft` to `path`: the same
 * builder and counter that measure every call, on the path with the compaction in place (never written).
 */
export function measureAfter(path: readonly SessionEntry[], draft: CompactionDraft, deps: CountingDeps): MeasuredContext {
  const leaf = path.at(-1);
  const entry: CompactionEntry = {
    type: 'compaction',
    id: `draft-${newEntryId()}`,
    parentId: leaf?.id ?? null,
    timestamp: new Date().toISOString(),
    summary: draft.summary,
    firstKeptEntryId: draft.firstKeptEntryId,
    ...(draft.turnPrefixSummary !== undefined ? { turnPrefixSummary: draft.turnPrefixSummary } : {}),
    tokensBefore: 0,
    tokensAfter: 0,
    files: draft.files,
    edited: false,
    auto: false,
  };
  return measureContext([...path, entry], deps);
}

/** The messages a measured context sends, with their sizes (what the review lists as kept). */
function sentSizes(measured: MeasuredContext): EntrySize[] {
  const byId = new Map(measured.path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  const seen = new Set<string>();
  return buildContext(measured.path).items.flatMap((item) => {
    const entry = item.entryId === undefined ? undefined : byId.get(item.entryId);
    if (!entry || seen.has(entry.id)) return [];
    seen.add(entry.id);
    const tokens = (item.pruned ? measured.costs.pruned : measured.costs.full).get(entry.id) ?? 0;
    return [{ id: entry.id, type: entry.type, tokens }];
  });
}

export function fixedOf(measured: MeasuredContext): number {
  const { breakdown } = measured.budget;
  return breakdown.system + breakdown.instructions + breakdown.tools;
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

export function sizes(ids: readonly string[], byId: ReadonlyMap<string, MessageEntry>, measured: MeasuredContext): EntrySize[] {
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
export function summaryInstructions(standing: string, given: string | undefined): string | undefined {
  const parts = [standing.trim(), given?.trim() ?? ''].filter((part) => part !== '');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

export async function proposeCompaction(log: CompactionLog, options: ProposeOptions): Promise<CompactionProposal | null> {
  const path = log.path();
  const measured = measureContext(path, options);
  const { budget, thresholds } = measured;
  const plan = planCompaction(path, measured.costs, {
    keepRecentTokens: thresholds.keepRecent,
    // With a trigger percent set, the plan aims below the trigger, so the next turn does not compact again.
    usable: compactAtTokens(budget, thresholds, options.settings.compaction.triggerPercent),
    fixedTokens: fixedOf(measured),
    currentSummaryTokens: budget.breakdown.summary,
    summaryRoom: thresholds.summaryTokens,
    // Asked for by the person: summarize at least as much as a summary may cost, or it would only add tokens.
    minimumSummarized: options.force ? thresholds.summaryTokens : 0,
  });
  const over = budget.used > budget.usable;
  if (over) {
    const minimum = plan ? minimumAfter(path, plan.lastCutEntryId, options) : undefined;
    if (minimum === undefined || minimum > budget.usable) throw new NoRoomError(explainNoRoom(measured, minimum));
  }
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
  const after = measureAfter(path, { ...result, firstKeptEntryId: plan.firstKeptEntryId }, options);
  return {
    ...result,
    firstKeptEntryId: plan.firstKeptEntryId,
    summarized: sizes([...plan.summarizeEntryIds, ...plan.turnPrefixEntryIds], byId, measured),
    kept: sentSizes(after),
    tokensBefore: budget.used,
    tokensAfter: after.budget.used,
    fixedTokens: fixedOf(after),
    keptTokens: after.budget.breakdown.messages + after.budget.breakdown.toolResults,
    leafId: log.leafId,
    instructions: options.instructions,
  };
}

/**
 * The smallest context any compaction could leave, measured: the latest possible cut with an empty summary
 * (pins and the carried request included), plus the room a summary needs. Undefined when nothing can be cut.
 */
export function minimumAfter(path: readonly SessionEntry[], lastCutEntryId: string | null, deps: CountingDeps): number | undefined {
  if (lastCutEntryId === null) return undefined;
  const measured = measureAfter(path, { summary: '', firstKeptEntryId: lastCutEntryId, files: { read: [], modified: [] } }, deps);
  return measured.budget.used + measured.thresholds.summaryTokens;
}

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
export function onlyMarkedSince(log: CompactionLog, leafId: string | null): boolean {
  const path = log.path();
  const at = leafId === null ? -1 : path.findIndex((entry) => entry.id === leafId);
  if (leafId !== null && at < 0) return false;
  return path.slice(at + 1).every((entry) => entry.type === 'pin' || entry.type === 'label');
}

/** Appends the CompactionEntry; rejects when the conversation moved on since the proposal or the summary is empty. */
export async function applyCompaction(log: CompactionLog, proposal: CompactionProposal, options: ApplyOptions): Promise<CompactionEntry> {
  if (!onlyMarkedSince(log, proposal.leafId)) throw new Error('The session changed since this compaction was proposed; propose it again.');
  if (options.summary.trim() === '') throw new Error('The compaction summary is empty; nothing was applied.');
  const draft: CompactionDraft = { summary: options.summary, firstKeptEntryId: proposal.firstKeptEntryId, files: proposal.files, ...(proposal.turnPrefixSummary !== undefined ? { turnPrefixSummary: proposal.turnPrefixSummary } : {}) };
  const tokensAfter = options.summary === proposal.summary ? proposal.tokensAfter : measureAfter(log.path(), draft, options.deps).budget.used;
  const entry = await log.append({
    type: 'compaction',
    summary: options.summary,
    firstKeptEntryId: proposal.firstKeptEntryId,
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
