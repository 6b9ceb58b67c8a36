// Counts the context a path would send and the budget it leaves: the numbers every loop decision starts from.
import type { Budget, BudgetBreakdown } from '../budget/budget';
import { computeBudget } from '../budget/budget';
import { countContext } from '../budget/contextCounts';
import type { PrunePlan } from '../budget/prunePlan';
import { planPrune } from '../budget/prunePlan';
import type { ChatToolDefinition } from '../context/chatMessage';
import type { SessionEntry } from '../session/entries';
import type { Settings } from '../settings/settings';
import type { Calibration } from '../tokens/calibration';
import type { CountCache } from '../tokens/countCache';
import type { EntryCounts } from '../tokens/entryTokens';
import { countPath } from '../tokens/entryTokens';
import type { TokenCounter } from '../tokens/tokenCounter';

/** Everything needed to count a context; shared by the loop, the compaction runner and the prune runner. */
export interface CountingDeps {
  counter: TokenCounter;
  cache: CountCache;
  calibration?: Calibration;
  settings: Settings;
  contextWindow: number;
  systemPrompt: string;
  systemRole: 'system' | 'developer';
  tools: readonly ChatToolDefinition[];
}

export interface MeasuredContext {
  path: SessionEntry[];
  counts: EntryCounts;
  breakdown: BudgetBreakdown;
  /** Our raw (uncalibrated) count of the whole prompt: what calibration compares reports with. */
  countedPrompt: number;
  budget: Budget;
  prune: PrunePlan;
}

export function breakdownTotal(breakdown: BudgetBreakdown): number {
  return breakdown.system + breakdown.tools + breakdown.summary + breakdown.messages + breakdown.toolResults;
}

export function measureContext(path: SessionEntry[], deps: CountingDeps): MeasuredContext {
  const counts = countPath(path, deps.counter, deps.cache);
  const counted = countContext(path, counts, deps.counter, {
    systemPrompt: deps.systemPrompt,
    systemRole: deps.systemRole,
    tools: deps.tools,
  });
  const budget = computeBudget({
    contextWindow: deps.contextWindow,
    maxOutputTokens: deps.settings.context.maxOutputTokens,
    reserveTokens: deps.settings.compaction.reserveTokens,
    counted: counted.breakdown,
    exact: deps.counter.exact,
    calibration: deps.calibration,
    lastReport: counted.lastReport,
  });
  return {
    path,
    counts,
    breakdown: counted.breakdown,
    countedPrompt: breakdownTotal(counted.breakdown),
    budget,
    prune: planPrune(path, counts, deps.settings.pruning),
  };
}
