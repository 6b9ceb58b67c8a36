// Proposes a compaction (cut plan + summary) and applies it as a CompactionEntry; shared by the loop, /compact and the UI.
import { planCompaction } from '../compaction/cutPlan';
import type { SummarizeResult } from '../compaction/summarizer';
import { splitAtLatestCompaction, summaryMessageText } from '../context/contextBuilder';
import type { CompactionEntry, FileLedger, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { estimateTokens } from '../tokens/tokenCounter';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { AgentLog } from './agentLog';
import type { CountingDeps } from './contextMeasure';
import { measureContext } from './contextMeasure';

/** What the summarizer is given: the entries to replace and what the previous compaction already said. */
export interface SummarizeRequest {
  entries: MessageEntry[];
  /** Head of a turn cut in the middle, summarized separately (empty when the cut is at a turn start). */
  turnPrefixEntries: MessageEntry[];
  previousSummary?: string;
  previousFiles: FileLedger;
  instructions?: string;
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

function sizes(ids: readonly string[], byId: ReadonlyMap<string, MessageEntry>, tokens: ReadonlyMap<string, number>): EntrySize[] {
  return ids.flatMap((id) => {
    const entry = byId.get(id);
    return entry ? [{ id, type: entry.type, tokens: tokens.get(id) ?? 0 }] : [];
  });
}

function previousFiles(path: readonly SessionEntry[]): FileLedger {
  const previous = splitAtLatestCompaction(path).compaction;
  return previous ? previous.files : { read: [], modified: [] };
}

/** Null when there is nothing to compact (too little history, or it fits and force is not set). */
export async function proposeCompaction(log: AgentLog, options: ProposeOptions): Promise<CompactionProposal | null> {
  const path = log.path();
  const measured = measureContext(path, options);
  const fixedTokens = measured.breakdown.system + measured.breakdown.tools;
  const plan = planCompaction(path, measured.counts, {
    keepRecentTokens: options.settings.compaction.keepRecentTokens,
    usable: measured.budget.usable,
    fixedTokens,
    summaryTokens: measured.breakdown.summary,
  });
  if (!plan || (!plan.needed && !options.force)) return null;
  if (plan.summarizeEntryIds.length + plan.turnPrefixEntryIds.length === 0) return null;
  const byId = new Map(path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  const pick = (ids: readonly string[]): MessageEntry[] => ids.flatMap((id) => byId.get(id) ?? []);
  const previous = splitAtLatestCompaction(path).compaction;
  const result = await options.summarize({
    entries: pick(plan.summarizeEntryIds),
    turnPrefixEntries: pick(plan.turnPrefixEntryIds),
    previousSummary: previous?.summary,
    previousFiles: previousFiles(path),
    instructions: options.instructions,
    signal: options.signal,
  });
  const keptIds = plan.firstKeptEntryId === null ? [] : contextIdsFrom(path, plan.firstKeptEntryId);
  const summaryTokens = countSummary(result.summary, result.turnPrefixSummary, options.counter);
  return {
    ...result,
    firstKeptEntryId: plan.firstKeptEntryId,
    summarized: sizes([...plan.summarizeEntryIds, ...plan.turnPrefixEntryIds], byId, measured.counts.full),
    kept: sizes(keptIds, byId, measured.counts.full),
    tokensBefore: measured.budget.used,
    tokensAfter: fixedTokens + summaryTokens + plan.tokensKept,
    fixedTokens,
    keptTokens: plan.tokensKept,
    leafId: log.leafId,
    instructions: options.instructions,
  };
}

function contextIdsFrom(path: readonly SessionEntry[], firstKeptEntryId: string): string[] {
  const start = path.findIndex((entry) => entry.id === firstKeptEntryId);
  return start < 0 ? [] : path.slice(start).filter(isMessageEntry).map((entry) => entry.id);
}

/** Tokens of the user message that carries the summary (estimated when no counter is given). */
function countSummary(summary: string, turnPrefixSummary: string | undefined, counter?: TokenCounter): number {
  const probe = { type: 'compaction', summary, turnPrefixSummary } as CompactionEntry;
  const text = summaryMessageText(probe);
  return counter ? counter.countMessage({ role: 'user', content: text }) : estimateTokens(text) + 4;
}

export interface ApplyOptions {
  summary: string;
  edited: boolean;
  auto: boolean;
  instructions?: string;
  model?: string;
  counter?: TokenCounter;
}

/** Appends the CompactionEntry; rejects when the session moved on since the proposal or the summary is empty. */
export async function applyCompaction(log: AgentLog, proposal: CompactionProposal, options: ApplyOptions): Promise<CompactionEntry> {
  if (log.leafId !== proposal.leafId) throw new Error('The session changed since this compaction was proposed; propose it again.');
  if (options.summary.trim() === '') throw new Error('The compaction summary is empty; nothing was applied.');
  const summaryTokens = countSummary(options.summary, proposal.turnPrefixSummary, options.counter);
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
