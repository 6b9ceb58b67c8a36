// Row 5: prune plan + compaction cut on 1,000 and 10,000-entry sessions (entry counts already cached).
import { planPrune } from '../src/core/budget/prunePlan';
import { thresholdsFor } from '../src/core/budget/thresholds';
import { planCompaction } from '../src/core/compaction/cutPlan';
import { defaultSettings } from '../src/core/settings/settings';
import { CountCache } from '../src/core/tokens/countCache';
import { countPath } from '../src/core/tokens/entryTokens';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { figureOf, ms, row, verdictOf, type BenchRow } from './benchReport';
import { medianTime } from './timing';
import { importedEntries, synthesizePath } from './workloads';

const CASES = [
  { size: 1_000, targetMs: 5 },
  { size: 10_000, targetMs: 50 },
] as const;

export function planningBench(counter: TokenCounter, iterations: number): BenchRow[] {
  const source = importedEntries('large-session.jsonl');
  const settings = defaultSettings();
  return CASES.map(({ size, targetMs }) => {
    const path = synthesizePath(source, size);
    const counts = countPath(path, counter, new CountCache());
    const thresholds = thresholdsFor(200_000, settings);
    const pruning = { ...settings.pruning, protectTokens: thresholds.pruneProtect, minimumTokens: thresholds.pruneMinimum };
    let pruneIds = 0;
    let needed = false;
    const planMs = medianTime(() => {
      pruneIds = planPrune(path, counts, pruning).entryIds.length;
      const cut = planCompaction(path, counts, { keepRecentTokens: thresholds.keepRecent, usable: thresholds.usable, fixedTokens: 0, currentSummaryTokens: 0, summaryRoom: thresholds.summaryTokens });
      needed = cut?.needed ?? false;
    }, iterations);
    return row({
      key: `planning.ms.${size}`,
      label: `5. prune plan + compaction cut, ${size.toLocaleString('en-US')} entries`,
      value: planMs,
      unit: 'ms',
      target: `≤ ${targetMs} ms`,
      met: planMs <= targetMs,
      detail: `${ms(planMs)} median; plan prunes ${pruneIds} outputs, compaction needed: ${needed} (n=${iterations})`,
    });
  });
}

/** Row 5's paragraph of "What limits each row", with this run's figures. */
export function planningLimits(rows: readonly BenchRow[]): string {
  const figure = figureOf(rows);
  return `5. **Planning (${verdictOf(rows)('planning.ms.10000')}: ${figure('planning.ms.1000')} at 1,000 entries, ${figure('planning.ms.10000')} at 10,000):** both planners, called here as a fresh plan of a whole session, are single linear passes over the message entries; the meter's plan on each turn comes from an index kept up to date instead (rows 2 and 12).`;
}
