// Real fixture sessions: plans at 32k/128k/200k windows keep their invariants; chars/4 error is measured against the tokenizer.
import { describe, expect, it } from 'vitest';
import { effectiveReserve } from '../../src/core/budget/budget';
import { planPrune } from '../../src/core/budget/prunePlan';
import { planReport } from '../../src/core/budget/planReport';
import { planCompaction } from '../../src/core/compaction/cutPlan';
import { defaultSettings } from '../../src/core/settings/settings';
import type { SessionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';
import { CountCache } from '../../src/core/tokens/countCache';
import { countPath, entryMessage } from '../../src/core/tokens/entryTokens';
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

  it('plans at 32k, 128k and 200k windows satisfy the cut and prune invariants', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const counts = countPath(path, counter, new CountCache());
    const settings = defaultSettings();
    for (const window of [32_000, 128_000, 200_000]) {
      const usable = window - effectiveReserve(settings.compaction.reserveTokens, settings.context.maxOutputTokens, window);
      const options = { keepRecentTokens: settings.compaction.keepRecentTokens, usable };
      const plan = planCompaction(path, counts, options);
      expect(plan).not.toBeNull();
      expectValidCut(path, plan!, options);
      const prune = planPrune(path, counts, settings.pruning);
      expect(prune.entryIds.length === 0 || prune.tokensFreed >= settings.pruning.minimumTokens).toBe(true);
      const report = await planReport(path, { contextWindow: window, maxOutput: settings.context.maxOutputTokens, model: 'gpt-4o', settings, counter });
      expect(report.budget.usable).toBe(usable);
      expect(report.compaction.firstKeptEntryId).toBe(plan!.firstKeptEntryId);
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
