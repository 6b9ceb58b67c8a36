// Real fixture sessions: plans at 8k to 1M windows keep their invariants; chars/4 error is measured against the tokenizer.
import { describe, expect, it } from 'vitest';
import { measureContext } from '../../src/core/budget/meter';
import { planReport } from '../../src/core/cli/planReport';
import { planCompaction } from '../../src/core/compaction/cutPlan';
import { defaultSettings } from '../../src/core/settings/settings';
import type { SessionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';
import { CountCache } from '../../src/core/tokens/countCache';
import { entryMessage } from '../../src/core/tokens/entryTokens';
import { TokenCounter, estimateTokens } from '../../src/core/tokens/tokenCounter';
import { FIXTURE_FILES, readFixturePath } from '../support/budgetFixtures';
import { expectValidCut } from '../support/budgetInvariants';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

/** The text chars/4 would be applied to: everything the message carries. */
function messageChars(entry: SessionEntry): number {
  if (!isMessageEntry(entry)) return 0;
  const message = entryMessage(entry);
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.name + call.function.arguments).join('') : '';
  return (message.content ?? '').length + calls.length;
}

describe.each(FIXTURE_FILES)('fixture %s', (file) => {
  const path = readFixturePath(file);

  it('plans at 8k, 16k, 32k, 128k, 200k and 1M windows satisfy the cut and prune invariants, in one unit', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const cache = new CountCache();
    const settings = defaultSettings();
    for (const window of [8_192, 16_384, 32_768, 128_000, 200_000, 1_048_576]) {
      const measured = measureContext(path, { counter, cache, settings, contextWindow: window, systemRole: 'system', tools: [] });
      const { budget, thresholds } = measured;
      const options = { keepRecentTokens: thresholds.keepRecent, usable: budget.usable, fixedTokens: 0, currentSummaryTokens: budget.breakdown.summary, summaryRoom: thresholds.summaryTokens };
      const plan = planCompaction(path, measured.costs, options);
      expect(plan).not.toBeNull();
      expectValidCut(path, plan!, options);
      const prune = measured.prune;
      expect(prune.entryIds.length === 0 || prune.tokensFreed >= thresholds.pruneMinimum).toBe(true);
      const report = await planReport(path, { contextWindow: window, windowSource: 'option', model: 'gpt-4o', settings, counter, cache });
      expect(report.budget.usable).toBe(budget.usable);
      expect(report.budget.used).toBe(budget.used);
      expect(report.compaction.firstKeptEntryId).toBe(plan!.firstKeptEntryId);
      // needed, the decision and the budget are the same number: over usable means compaction is needed.
      expect(report.compaction.needed).toBe(budget.used > budget.usable);
      expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    }
  });

  it('measures the per-message error of chars/4 against the tokenizer', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const errors: number[] = [];
    for (const entry of path) {
      if (!isMessageEntry(entry)) continue;
      const exact = counter.countMessage(entryMessage(entry)) - 3;
      if (exact < 20) continue;
      errors.push(Math.abs(estimateTokens('x'.repeat(messageChars(entry))) - exact) / exact);
    }
    errors.sort((a, b) => a - b);
    const median = percentile(errors, 0.5);
    const p95 = percentile(errors, 0.95);
    console.log(`${file}: chars/4 vs o200k over ${errors.length} messages: median ${(median * 100).toFixed(1)} %, p95 ${(p95 * 100).toFixed(1)} %`);
    expect(median).toBeGreaterThan(0.02);
  });
});
