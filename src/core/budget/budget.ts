// The token budget of one model call (window, reserve, what fills it) and the pure decisions taken on it.
import type { BudgetBreakdown as SharedBudgetBreakdown } from '../../shared/panelViewModels';

/** Tokens per part of the prompt: the shared view model's breakdown without `free` (derived from the budget). */
export type BudgetBreakdown = Omit<SharedBudgetBreakdown, 'free'>;

export interface Budget {
  contextWindow: number;
  /** Effective reserve: max(reserveTokens, maxOutputTokens), capped at half the window. */
  outputReserve: number;
  /** contextWindow − outputReserve: what the prompt may fill. */
  usable: number;
  used: number;
  /** True until the endpoint has reported usage once (no anchor, no calibration). */
  estimated: boolean;
  /** True when the tokenizer is the model's own (OpenAI models). */
  exact: boolean;
  breakdown: BudgetBreakdown;
  free: number;
  /** used / usable × 100 (may exceed 100 when the context already overflows). */
  percent: number;
}

export interface BudgetInput {
  contextWindow: number;
  maxOutputTokens: number;
  reserveTokens: number;
  /** Our own count of the context about to be sent, by part. */
  counted: BudgetBreakdown;
  exact: boolean;
  calibration?: { apply(count: number): number; calibrated: boolean };
  /** The last call's reported prompt tokens and what we counted for that same prompt. */
  lastReport?: { promptTokens: number; countedPrompt: number } | null;
}

/**
 * The reserve must cover the largest reply we request, or a call with a near-full prompt overflows
 * while generating: effective reserve = max(reserveTokens, maxOutputTokens). It is capped at half
 * the window so a small-window model with a large max_tokens setting still has room for a prompt
 * (the caller should then request at most `outputReserve` output tokens).
 */
export function effectiveReserve(reserveTokens: number, maxOutputTokens: number, contextWindow: number): number {
  return Math.min(Math.max(reserveTokens, maxOutputTokens), Math.floor(contextWindow / 2));
}

function sumBreakdown(breakdown: BudgetBreakdown): number {
  return breakdown.system + breakdown.tools + breakdown.summary + breakdown.messages + breakdown.toolResults;
}

function scaleBreakdown(breakdown: BudgetBreakdown, apply: (count: number) => number): BudgetBreakdown {
  return {
    system: apply(breakdown.system),
    tools: apply(breakdown.tools),
    summary: apply(breakdown.summary),
    messages: apply(breakdown.messages),
    toolResults: apply(breakdown.toolResults),
  };
}

/**
 * used = reported prompt tokens of the last call + calibrated count of what was appended since; this
 * is near-exact because only the new tail is estimated. When the context shrank since the report
 * (pruning, compaction) the anchor no longer describes it and the calibrated full count is used.
 */
export function computeBudget(input: BudgetInput): Budget {
  const outputReserve = effectiveReserve(input.reserveTokens, input.maxOutputTokens, input.contextWindow);
  const usable = Math.max(0, input.contextWindow - outputReserve);
  const calibration = input.calibration;
  const apply = calibration ? (count: number) => calibration.apply(count) : (count: number) => count;
  const countedTotal = sumBreakdown(input.counted);
  const anchor = input.lastReport;
  const anchored = anchor !== undefined && anchor !== null && countedTotal >= anchor.countedPrompt;
  const used = anchored ? anchor.promptTokens + apply(countedTotal - anchor.countedPrompt) : apply(countedTotal);
  return {
    contextWindow: input.contextWindow,
    outputReserve,
    usable,
    used,
    estimated: !anchored && !(calibration?.calibrated ?? false),
    exact: input.exact,
    breakdown: scaleBreakdown(input.counted, apply),
    free: Math.max(0, usable - used),
    percent: usable > 0 ? Math.round((used / usable) * 1000) / 10 : 100,
  };
}

/**
 * Pruning rewrites the middle of the prompt, which discards the provider's prompt cache from that
 * point on (every later token is billed and processed uncached again). So we prune only when the
 * budget asks for it, above this fill level, never as routine housekeeping on every turn.
 */
export const PRUNE_AT_PERCENT = 80;

export function shouldPrune(budget: Budget, pruneAtPercent: number = PRUNE_AT_PERCENT): boolean {
  return budget.percent >= pruneAtPercent;
}

export interface DecisionSettings {
  /** compaction.auto: when off, overflow is left to the endpoint's error (and the user's /compact). */
  autoCompact: boolean;
  pruningEnabled: boolean;
  /** Tokens the prune plan would free right now (planPrune(...).tokensFreed). */
  prunableTokens: number;
  pruneAtPercent?: number;
}

export type BeforeCallDecision = 'ok' | 'prune' | 'compact';

/**
 * Proactive check before every model call. Below the prune threshold: ok. Above it, prune when
 * pruning alone brings the prompt back under the usable budget; otherwise compact only when the
 * prompt actually overflows (filling up to `usable` is fine, compaction loses detail).
 */
export function decideBeforeCall(budget: Budget, settings: DecisionSettings): BeforeCallDecision {
  if (!shouldPrune(budget, settings.pruneAtPercent)) return 'ok';
  const prunable = settings.pruningEnabled ? settings.prunableTokens : 0;
  if (prunable > 0 && budget.used - prunable <= budget.usable) return 'prune';
  if (budget.used <= budget.usable) return 'ok';
  return settings.autoCompact ? 'compact' : 'ok';
}

/**
 * After a step with reported usage: the next prompt holds at least this prompt plus the reply, so
 * that (not our estimate) is what is checked against the budget.
 */
export function decideAfterStep(
  usage: { promptTokens: number; completionTokens: number },
  budget: Budget,
  settings: DecisionSettings,
): BeforeCallDecision {
  const used = Math.max(budget.used, usage.promptTokens + usage.completionTokens);
  const percent = budget.usable > 0 ? (used / budget.usable) * 100 : 100;
  return decideBeforeCall({ ...budget, used, percent, free: Math.max(0, budget.usable - used) }, settings);
}

export type OverflowDecision = 'compact-and-retry' | 'fail';

/** Reactive path: the endpoint rejected the prompt as too long. Compact and retry once, then give up. */
export function decideOnOverflowError(retriesSoFar: number): OverflowDecision {
  return retriesSoFar < 1 ? 'compact-and-retry' : 'fail';
}
