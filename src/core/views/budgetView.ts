// Turns the meter's budget and the session path into the status bar's and panel's BudgetView.
import type { Budget } from '../budget/budget';
import type { ContextWindowSource } from '../llm/contextWindow';
import type { CompactionEntry, SessionEntry } from '../session/entries';
import type { BudgetView } from '../../shared/panelViewModels';
import { awaitingCompactionConsent } from '../compaction/compactionUndo';
import { pathMarkers } from '../context/pathMarkers';

export interface BudgetViewInput {
  budget: Budget;
  path: readonly SessionEntry[];
  model: string;
  windowSource: ContextWindowSource;
  /** Where exactly the window came from, when the source says more than its kind (e.g. "Ollama num_ctx"). */
  windowDetail?: string;
  autoCompaction: boolean;
}

const SOURCE_LABELS: Record<ContextWindowSource, string> = {
  setting: 'from the setting',
  learned: 'learned from an overflow error or a truncated prompt of this endpoint',
  model: "from the model's metadata",
  endpoint: "from the endpoint's model list",
  server: "from the server's own API",
  untilLoaded: 'unknown until the server loads the model',
  default: 'no source told us',
};

/** The newest compaction on the path, if any (kept per session: no walk of the path). */
export function latestCompaction(path: readonly SessionEntry[]): CompactionEntry | undefined {
  return pathMarkers(path).compaction?.entry;
}

/**
 * True right after a compaction, until the endpoint reports usage again: the summary's size is only
 * counted, and the next report is what confirms how big the new context really is.
 */
export function isUnknownAfterCompaction(path: readonly SessionEntry[]): boolean {
  const latest = pathMarkers(path).compaction;
  if (!latest) return false;
  // Only the entries since the latest compaction are read.
  for (let index = path.length - 1; index > latest.index; index--) {
    const entry = path[index];
    if (entry?.type === 'assistant' && entry.usage) return false;
  }
  return true;
}

export function toBudgetView(input: BudgetViewInput): BudgetView {
  const { budget } = input;
  const compaction = latestCompaction(input.path);
  return {
    contextWindow: budget.contextWindow,
    usable: budget.usable,
    used: budget.used,
    reserved: budget.outputReserve,
    percent: budget.percent,
    estimated: budget.estimated,
    unknown: isUnknownAfterCompaction(input.path),
    exact: budget.exact,
    breakdown: { ...budget.breakdown, free: budget.free },
    model: input.model,
    windowSource: input.windowDetail ?? SOURCE_LABELS[input.windowSource],
    windowKnown: budget.windowKnown,
    ...(input.windowSource === 'untilLoaded' ? { windowUntilLoaded: true } : {}),
    ...(budget.reportNote ? { reportNote: budget.reportNote } : {}),
    autoCompaction: input.autoCompaction,
    ...(awaitingCompactionConsent(input.path) ? { autoCompactionPaused: true } : {}),
    ...(compaction
      ? { lastCompaction: { when: compaction.timestamp, tokensBefore: compaction.tokensBefore, tokensAfter: compaction.tokensAfter } }
      : {}),
  };
}
