// The token budget of one model call as the meter measured it, and the one decision taken on it before every call.
import type { BudgetBreakdown as SharedBudgetBreakdown } from '../../shared/panelViewModels';

/** Tokens per part of the prompt: the shared view model's breakdown without `free` (derived from the budget). */
export type BudgetBreakdown = Omit<SharedBudgetBreakdown, 'free'>;

/** What `used` rests on: a usage report of this very prompt's prefix, a learned calibration, or our count alone. */
export type BudgetBasis = 'report' | 'calibrated' | 'estimate';

/** Every figure is in the endpoint's own units (our counts converted by the calibration). */
export interface Budget {
  contextWindow: number;
  /** False when no source told us the window (the figure is then an assumption). */
  windowKnown: boolean;
  outputReserve: number;
  /** contextWindow − outputReserve: what the prompt may fill. */
  usable: number;
  used: number;
  basis: BudgetBasis;
  /** True while `used` is only our own estimate (no believed report, no calibration). */
  estimated: boolean;
  /** True when the tokenizer is the model's own (OpenAI models). */
  exact: boolean;
  breakdown: BudgetBreakdown;
  free: number;
  /** used / usable × 100 (may exceed 100 when the context already overflows). */
  percent: number;
  /** Why the endpoint's last usage report was not believed, when it was not. */
  reportNote?: string;
}

export function sumBreakdown(breakdown: BudgetBreakdown): number {
  return breakdown.system + breakdown.instructions + breakdown.tools + breakdown.summary + breakdown.messages + breakdown.toolResults;
}

/**
 * Where automatic compaction starts. 0 % (the default): at the usable budget. A set percentage compacts
 * earlier, but never below the fixed prompt plus the summary room and the kept tail (a trigger under what a
 * compaction leaves behind would compact on every turn); never above the usable budget.
 */
export function compactAtTokens(budget: Budget, limits: { keepRecent: number; summaryTokens: number }, triggerPercent: number): number {
  if (!(triggerPercent > 0) || triggerPercent >= 100) return budget.usable;
  const fixed = budget.breakdown.system + budget.breakdown.instructions + budget.breakdown.tools;
  const floor = fixed + limits.summaryTokens + limits.keepRecent;
  return Math.min(budget.usable, Math.max(floor, Math.floor((budget.usable * triggerPercent) / 100)));
}

/** Fill level (of the usable budget) above which a cold cache triggers compaction (the cache-aware trigger). */
export const COLD_CACHE_COMPACT_PERCENT = 50;

/**
 * Seconds since the last model call on this path, measured at its newest entry (the request just appended), or
 * null when no model call is on it yet. The prompt cache of a provider is gone once this exceeds its lifetime.
 */
export function idleSeconds(path: ReadonlyArray<{ type: string; timestamp: string }>): number | null {
  const newest = path.at(-1);
  if (!newest) return null;
  for (let i = path.length - 2; i >= 0; i--) {
    const entry = path[i];
    if (entry?.type !== 'assistant') continue;
    const gap = (Date.parse(newest.timestamp) - Date.parse(entry.timestamp)) / 1000;
    return Number.isFinite(gap) ? Math.max(0, gap) : null;
  }
  return null;
}

export interface DecisionSettings {
  /** compaction.auto: when off, the loop stops before an overflowing call and says how to make room. */
  autoCompact: boolean;
  pruningEnabled: boolean;
  /** Tokens the prune plan would free right now, in the same units as the budget. */
  prunableTokens: number;
  /**
   * Pruning rewrites the middle of the prompt, which discards the provider's prompt cache from that point
   * on, so it is considered only above this fill level, never as routine housekeeping on every turn.
   */
  pruneAtPercent: number;
  /** Where automatic compaction starts, in the budget's units (usable unless a trigger percent is set). */
  compactAt: number;
  /**
   * Where it starts instead when the provider's prompt cache has expired (the last model call is older than the
   * cache lifetime): the next call is uncached whatever is sent, so compacting now costs no cache. Absent: the cache
   * is warm, or the cache-aware trigger is off.
   */
  coldCompactAt?: number;
}

export type BeforeCallDecision = 'ok' | 'prune' | 'compact';

/**
 * Proactive check before every model call. Below the prune threshold: ok. Above it, prune when pruning
 * alone brings the prompt back under the usable budget; otherwise compact only when the prompt actually
 * overflows (filling up to `usable` is fine: compaction loses detail).
 */
export function decideBeforeCall(budget: Budget, settings: DecisionSettings): BeforeCallDecision {
  if (settings.autoCompact && settings.coldCompactAt !== undefined && budget.used > settings.coldCompactAt) return 'compact';
  const limit = Math.min(budget.usable, settings.compactAt);
  if (budget.percent < settings.pruneAtPercent && budget.used <= limit) return 'ok';
  const prunable = settings.pruningEnabled ? settings.prunableTokens : 0;
  if (prunable > 0 && budget.used - prunable <= limit) return 'prune';
  if (budget.used <= limit) return 'ok';
  return settings.autoCompact ? 'compact' : 'ok';
}
