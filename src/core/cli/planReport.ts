// The CLI's plan report (`inspect`): the budget, the prune plan and the cut plan of a session, with the same plan and
// measure the loop uses.
import type { CountingDeps } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { compactAtTokens, decideBeforeCall, type BeforeCallDecision, type Budget } from '../budget/budget';
import type { Calibration } from '../budget/calibration';
import type { PrunePlan } from '../budget/prunePlan';
import type { Thresholds } from '../budget/thresholds';
import type { ChatToolDefinition } from '../context/chatMessage';
import { fixedOf, measureAfter, minimumAfter } from '../compaction/contextAfter';
import { planCompaction, type CutPlan } from '../compaction/cutPlan';
import type { SessionEntry } from '../session/entries';
import type { Settings } from '../settings/settings';
import { CountCache } from '../tokens/countCache';
import { TokenCounter } from '../tokens/tokenCounter';

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
  lastRequestId: null,
  lastCutEntryId: null,
  lastCut: null,
};

export async function planReport(path: readonly SessionEntry[], options: PlanReportOptions): Promise<PlanReport> {
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
