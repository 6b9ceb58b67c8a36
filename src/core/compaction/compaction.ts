// Compaction, stages 3 and 4: propose (summarize at the planned cut, measure the context after) and apply; shared by the loop, /compact and the panel.
//
// Reading order: cutPlan.ts (1. plan: where to cut, as data) → summaryPrompt.ts and summarizer.ts (2. summarize: what
// the model is sent, each request measured) → this file (3. propose, 4. apply) → handoff.ts and compactionUndo.ts (the
// same summary seeding a new session, and undoing a compaction). What the model sees is defined once, by
// context/contextBuilder.ts, and "how full" once, by budget/meter.ts: every figure here is their measure.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { compactAtTokens, decideBeforeCall, type BeforeCallDecision, type Budget } from '../budget/budget';
import type { Calibration } from '../budget/calibration';
import type { PrunePlan } from '../budget/prunePlan';
import { explainNoRoom } from '../budget/roomReport';
import type { Thresholds } from '../budget/thresholds';
import type { ChatToolDefinition } from '../context/chatMessage';
import { buildContext, contextParts } from '../context/contextBuilder';
import { pinnedEntryIds } from '../context/contextMarkers';
import type { CompactionEntry, FileLedger, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { newEntryId } from '../session/newEntry';
import type { SessionLog } from '../session/sessionLog';
import type { Settings } from '../settings/settings';
import { CountCache } from '../tokens/countCache';
import { TokenCounter } from '../tokens/tokenCounter';
import { planCompaction, type Cut, type CutPlan } from './cutPlan';
import type { SummarizeFn, SummarizeRequest, SummarizeResult } from './summarizer';

/** What a summarizer is given and returns: the summarizer's own types, so the two can never drift apart. */
export type { SummarizeFn, SummarizeRequest, SummarizeResult };

/** The part of a session log compaction needs (the agent loop's log conforms to it). */
export type CompactionLog = Pick<SessionLog, 'append' | 'path' | 'tree' | 'leafId'>;

export interface EntrySize {
  id: string;
  type: MessageEntry['type'];
  tokens: number;
}

/**
 * Every token figure is in the endpoint's units, as the meter measures them. "After" is never added up by
 * hand: it is the meter's measure of the context that would be sent once the summary is in place (system
 * prompt, tools, summary with its appendix, pinned exchanges, the carried request, the kept turns). The cut
 * is the plan's, carried along as data to the entry the proposal becomes.
 */
export interface CompactionProposal extends SummarizeResult, Cut {
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

// ─── 3. Propose: summarize at the planned cut, measure what would be sent after ───

/** The compaction a proposal would append: what the context after is measured with. */
export interface CompactionDraft extends Cut {
  summary: string;
  turnPrefixSummary?: string;
  files: FileLedger;
}

function draftEntry(path: readonly SessionEntry[], draft: CompactionDraft): CompactionEntry {
  return {
    type: 'compaction',
    id: `draft-${newEntryId()}`,
    parentId: path.at(-1)?.id ?? null,
    timestamp: new Date().toISOString(),
    summary: draft.summary,
    firstKeptEntryId: draft.firstKeptEntryId,
    carriedRequestId: draft.carriedRequestId,
    ...(draft.turnPrefixSummary !== undefined ? { turnPrefixSummary: draft.turnPrefixSummary } : {}),
    tokensBefore: 0,
    tokensAfter: 0,
    files: draft.files,
    edited: false,
    auto: false,
  };
}

/**
 * The meter's measure of the context as it would be sent after appending `draft` to `path`: the same
 * builder and counter that measure every call, on the path with the compaction in place (never written).
 */
export function measureAfter(path: readonly SessionEntry[], draft: CompactionDraft, deps: CountingDeps): MeasuredContext {
  return measureContext([...path, draftEntry(path, draft)], deps);
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

export function sizes(ids: readonly string[], byId: ReadonlyMap<string, MessageEntry>, measured: MeasuredContext): EntrySize[] {
  return ids.flatMap((id) => {
    const entry = byId.get(id);
    return entry ? [{ id, type: entry.type, tokens: measured.costs.full.get(id) ?? 0 }] : [];
  });
}

/** Pinned messages among `messages` (each pin once, not the exchange it brings): what the appendix names. */
export function pinnedAmong(path: readonly SessionEntry[], messages: readonly MessageEntry[]): MessageEntry[] {
  const pinned = pinnedEntryIds(path);
  return messages.filter((entry) => pinned.has(entry.id));
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
  const { budget, thresholds } = measured;
  const plan = planFor(path, measured, options.settings, options.force ?? false);
  const over = budget.used > budget.usable;
  if (over) {
    const minimum = plan ? minimumAfter(path, plan.lastCut, options) : undefined;
    if (minimum === undefined || minimum > budget.usable) throw new NoRoomError(explainNoRoom(measured, minimum));
  }
  if (!plan || (!plan.needed && !over && !options.force)) return null;
  if (plan.summarizeEntryIds.length + plan.turnPrefixEntryIds.length === 0) return null;
  const cut: Cut = { firstKeptEntryId: plan.firstKeptEntryId, splitsTurn: plan.splitsTurn, carriedRequestId: plan.carriedRequestId };
  const byId = new Map(path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  const pick = (ids: readonly string[]): MessageEntry[] => ids.flatMap((id) => byId.get(id) ?? []);
  // The pins the context re-sends after this summary, as the builder will send them: the appendix names them.
  const resent = contextParts([...path, draftEntry(path, { ...cut, summary: '', files: { read: [], modified: [] } })]).resent;
  const result = await options.summarize({
    cut,
    entries: pick(plan.summarizeEntryIds),
    turnPrefixEntries: pick(plan.turnPrefixEntryIds),
    pinned: pinnedAmong(path, resent),
    instructions: summaryInstructions(options.settings.compaction.customInstructions, options.instructions),
    maxSummaryTokens: thresholds.summaryTokens,
    signal: options.signal,
  });
  const after = measureAfter(path, { ...result, ...cut }, options);
  return {
    ...result,
    ...cut,
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
export function minimumAfter(path: readonly SessionEntry[], lastCut: Cut | null, deps: CountingDeps): number | undefined {
  if (lastCut === null) return undefined;
  const measured = measureAfter(path, { ...lastCut, summary: '', files: { read: [], modified: [] } }, deps);
  return measured.budget.used + measured.thresholds.summaryTokens;
}

// ─── 4. Apply: one CompactionEntry, recording the plan's cut ───

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
  // Pins made while the summary waited change what is sent after it: measured again, like an edited summary.
  const tokensAfter = options.summary === proposal.summary && log.leafId === proposal.leafId ? proposal.tokensAfter : measureAfter(log.path(), draft, options.deps).budget.used;
  const entry = await log.append({
    type: 'compaction',
    summary: options.summary,
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

// ─── The plan as a report (the CLI's `inspect`): the same plan and measure the loop uses ───

export interface PlanReportOptions {
  contextWindow: number;
  /** Where the window came from, reported as is (e.g. "option", "default"). */
  windowSource: string;
  model: string;
  settings: Settings;
  systemPrompt?: string;
  tools?: readonly ChatToolDefinition[];
  calibration?: Calibration;
  /** Reuse a loaded counter / persisted counts (the CLI passes none). */
  counter?: TokenCounter;
  cache?: CountCache;
}

export interface PlanReport {
  model: string;
  encoding: string;
  window: { tokens: number; source: string };
  thresholds: Thresholds;
  budget: Budget;
  /** Our raw count of the prompt (before calibration). */
  counted: number;
  /** The usage report `used` rests on (used = its prompt tokens + what came after), or null. */
  anchor: { promptTokens: number; countedPrompt: number } | null;
  decision: BeforeCallDecision;
  prune: PrunePlan;
  /**
   * The cut plan, with `needed` also set when the before-call decision is to compact. `tokensAfter` is the
   * meter's measure of the context after compacting at this cut (pins, the carried request, fixed prompt and
   * kept turns), with the summary at the full room it may take; `minimumAfter` the same at the latest cut.
   */
  compaction: CutPlan & { canHelp: boolean; tokensAfter: number | null };
}

const NO_CUT: Omit<CutPlan, 'needed' | 'minimumAfter'> = {
  firstKeptEntryId: null,
  splitsTurn: false,
  carriedRequestId: null,
  summarizeEntryIds: [],
  turnPrefixEntryIds: [],
  tokensToSummarize: 0,
  tokensKept: 0,
  shrunk: false,
  fits: true,
  lastCutEntryId: null,
  lastCut: null,
};

export async function planReport(path: SessionEntry[], options: PlanReportOptions): Promise<PlanReport> {
  const counter = options.counter ?? (await TokenCounter.create(options.model));
  const deps: CountingDeps = {
    counter,
    cache: options.cache ?? new CountCache(),
    ...(options.calibration ? { calibration: options.calibration } : {}),
    settings: options.settings,
    contextWindow: options.contextWindow,
    windowKnown: options.windowSource !== 'default',
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    systemRole: 'system',
    tools: options.tools ?? [],
  };
  const measured = measureContext(path, deps);
  const { budget, thresholds } = measured;
  const cut = planCompaction(path, measured.costs, {
    keepRecentTokens: thresholds.keepRecent,
    usable: budget.usable,
    fixedTokens: fixedOf(measured),
    currentSummaryTokens: budget.breakdown.summary,
    summaryRoom: thresholds.summaryTokens,
  });
  const decision = decideBeforeCall(budget, {
    autoCompact: options.settings.compaction.auto,
    pruningEnabled: options.settings.pruning.enabled && thresholds.autoPrune,
    prunableTokens: measured.prune.tokensFreed,
    pruneAtPercent: thresholds.pruneAtPercent,
    compactAt: compactAtTokens(budget, thresholds, options.settings.compaction.triggerPercent),
  });
  const minimum = (cut ? minimumAfter(path, cut.lastCut, deps) : undefined) ?? budget.used;
  const tokensAfter = cut?.firstKeptEntryId ? measureAfter(path, { ...cut, summary: '', files: { read: [], modified: [] } }, deps).budget.used + thresholds.summaryTokens : null;
  return {
    model: options.model,
    encoding: counter.encoding,
    window: { tokens: thresholds.window, source: options.windowSource },
    thresholds,
    budget,
    counted: measured.countedPrompt,
    anchor: measured.anchor,
    decision,
    prune: measured.prune,
    compaction: {
      ...(cut ?? NO_CUT),
      needed: decision === 'compact' || (cut?.needed ?? false),
      minimumAfter: minimum,
      tokensAfter,
      canHelp: minimum <= budget.usable,
    },
  };
}
