// The meter's budget, prune plan and compaction plan of a session path as one JSON report (printed by the CLI's `inspect`).
import type { ChatToolDefinition } from '../context/chatMessage';
import { planCompaction, type CutPlan } from '../compaction/cutPlan';
import type { SessionEntry } from '../session/entries';
import type { Settings } from '../settings/settings';
import { CountCache } from '../tokens/countCache';
import { TokenCounter } from '../tokens/tokenCounter';
import { compactAtTokens, decideBeforeCall, type BeforeCallDecision, type Budget } from './budget';
import type { Calibration } from './calibration';
import { measureContext, type CountingDeps } from './meter';
import type { PrunePlan } from './prunePlan';
import type { Thresholds } from './thresholds';

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
  /** The cut plan, with `needed` also set when the before-call decision is to compact. */
  compaction: CutPlan & { canHelp: boolean };
}

const NO_CUT: Omit<CutPlan, 'needed' | 'minimumAfter'> = {
  firstKeptEntryId: null,
  summarizeEntryIds: [],
  turnPrefixEntryIds: [],
  tokensToSummarize: 0,
  tokensKept: 0,
  shrunk: false,
  fits: true,
  lastCutEntryId: null,
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
  const fixed = budget.breakdown.system + budget.breakdown.instructions + budget.breakdown.tools;
  const cut = planCompaction(path, measured.costs, {
    keepRecentTokens: thresholds.keepRecent,
    usable: budget.usable,
    fixedTokens: fixed,
    currentSummaryTokens: budget.breakdown.summary,
    summaryRoom: thresholds.summaryTokens,
  });
  const decision = decideBeforeCall(budget, {
    autoCompact: options.settings.compaction.auto,
    pruningEnabled: options.settings.pruning.enabled,
    prunableTokens: measured.prune.tokensFreed,
    pruneAtPercent: thresholds.pruneAtPercent,
    compactAt: compactAtTokens(budget, thresholds, options.settings.compaction.triggerPercent),
  });
  const minimumAfter = cut?.minimumAfter ?? budget.used;
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
      minimumAfter,
      canHelp: minimumAfter <= budget.usable,
    },
  };
}
