// Money with Intl, the cached share, and the session line of the status bar tooltip.
import { describe, expect, it } from 'vitest';
import { emptyUsageFigures } from '../../src/core/views/usageView';
import type { UsageFigures } from '../../src/shared/panelViewModels';
import { cachedPercent, costLabel, formatUsd, sessionUsageLine, usageTooltipMarkdown } from '../../src/shared/usageFormat';

const figures = (extra: Partial<UsageFigures>): UsageFigures => ({ ...emptyUsageFigures(), ...extra });

describe('formatUsd', () => {
  it.each([
    [0.8412, '$0.84'],
    [12.5, '$12.50'],
    [1234.5, '$1,234.50'],
    [0.0042, '$0.0042'],
    [0.1, '$0.10'],
    [0, '$0.00'],
    [-3, '$0.00'],
    [Number.NaN, '$0.00'],
  ])('%s → %s', (amount, text) => {
    expect(formatUsd(amount)).toBe(text);
  });
});

describe('session usage line', () => {
  it('status-bar-line-shows-prompt-cached-output-summaries-and-cost', () => {
    const session = figures({ calls: 40, pricedCalls: 40, promptTokens: 1_200_000, cachedTokens: 768_000, outputTokens: 12_000, cost: 0.8412 });
    expect(sessionUsageLine(session)).toBe('Session: 1.2M prompt (64% cached), 12k output, 0 summaries, $0.84');
    // Summaries report no cost: two of them make the figure a lower bound, and the line says so.
    expect(sessionUsageLine({ ...session, summaries: 2 })).toBe('Session: 1.2M prompt (64% cached), 12k output, 2 summaries, $0.84 (2 calls without a reported cost)');
  });

  it('cost-not-reported-when-no-call-priced', () => {
    const session = figures({ calls: 3, promptTokens: 5_000, outputTokens: 300, summaries: 1 });
    expect(sessionUsageLine(session)).toBe('Session: 5k prompt, 300 output, 1 summary, cost not reported');
    expect(costLabel(figures({ calls: 2, pricedCalls: 1, cost: 0.01, unreportedCalls: 1 }))).toBe('$0.01 (2 calls without a reported cost)');
  });

  it('cached-share-is-bounded', () => {
    expect(cachedPercent({ promptTokens: 0, cachedTokens: 10 })).toBe(0);
    expect(cachedPercent({ promptTokens: 100, cachedTokens: 250 })).toBe(100);
    expect(cachedPercent({ promptTokens: 3, cachedTokens: 1 })).toBe(33);
  });

  it('tooltip-paragraph-is-escaped-markdown', () => {
    const text = usageTooltipMarkdown(figures({ calls: 1, pricedCalls: 1, promptTokens: 1_000, cachedTokens: 500, outputTokens: 10, cost: 0.5 }));
    expect(text.startsWith('\n\nSession: ')).toBe(true);
    expect(text).toContain('\\(50% cached\\)');
    expect(text).not.toContain('$(');
  });
});
