// The budget, prune plan and compaction plan of a session path as one JSON report (printed by the CLI's `inspect`).
import type { ChatToolDefinition } from '../context/chatMessage';
import type { SessionEntry } from '../session/entries';
import type { Settings } from '../settings/settings';
import { planCompaction, type CutPlan } from '../compaction/cutPlan';
import { CountCache } from '../tokens/countCache';
import { countPath } from '../tokens/entryTokens';
import { TokenCounter } from '../tokens/tokenCounter';
import { computeBudget, decideBeforeCall, type Budget, type BeforeCallDecision } from './budget';
import { countContext } from './contextCounts';
import { planPrune, type PrunePlan } from './prunePlan';

export interface PlanReportOptions {
  contextWindow: number;
  maxOutput: number;
  model: string;
  settings: Settings;
  systemPrompt?: string;
  tools?: readonly ChatToolDefinition[];
  /** Reuse a loaded counter / persisted counts (the CLI passes none). */
  counter?: TokenCounter;
  cache?: CountCache;
}

export interface PlanReport {
  model: string;
  encoding: string;
  budget: Budget;
  decision: BeforeCallDecision;
  prune: PrunePlan;
  /** The cut plan, with `needed` also set when the before-call decision is to compact. */
  compaction: CutPlan;
}

export async function planReport(path: readonly SessionEntry[], options: PlanReportOptions): Promise<PlanReport> {
  const counter = options.counter ?? (await TokenCounter.create(options.model));
  const counts = countPath(path, counter, options.cache ?? new CountCache());
  const context = countContext(path, counts, counter, { systemPrompt: options.systemPrompt, tools: options.tools });
  const fixed = context.breakdown;
  const { settings } = options;
  const budget = computeBudget({
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutput,
    reserveTokens: settings.compaction.reserveTokens,
    counted: context.breakdown,
    exact: counter.exact,
    lastReport: context.lastReport,
  });
  const prune = planPrune(path, counts, settings.pruning);
  const cut = planCompaction(path, counts, {
    keepRecentTokens: settings.compaction.keepRecentTokens,
    usable: budget.usable,
    fixedTokens: fixed.system + fixed.tools,
    summaryTokens: fixed.summary,
  });
  const decision = decideBeforeCall(budget, {
    autoCompact: settings.compaction.auto,
    pruningEnabled: settings.pruning.enabled,
    prunableTokens: prune.tokensFreed,
  });
  return {
    model: options.model,
    encoding: counter.encoding,
    budget,
    decision,
    prune,
    compaction: {
      needed: decision === 'compact' || (cut?.needed ?? false),
      firstKeptEntryId: cut?.firstKeptEntryId ?? null,
      summarizeEntryIds: cut?.summarizeEntryIds ?? [],
      turnPrefixEntryIds: cut?.turnPrefixEntryIds ?? [],
      tokensToSummarize: cut?.tokensToSummarize ?? 0,
      tokensKept: cut?.tokensKept ?? 0,
      shrunk: cut?.shrunk ?? false,
      fits: cut?.fits ?? true,
    },
  };
}
