// The pure status bar formatting: token counts, the ~ and ? marks, threshold levels, tooltip and accessibility text.
import { describe, expect, it } from 'vitest';
import {
  budgetAccessibilityLabel,
  budgetLevel,
  budgetMark,
  budgetStatusText,
  budgetTooltipMarkdown,
  escapeMarkdownCell,
  formatAgo,
  formatPercent,
  formatTokens,
  windowLabel,
} from '../../src/shared/budgetFormat';
import type { BudgetView } from '../../src/shared/panelViewModels';

function budget(overrides: Partial<BudgetView> = {}): BudgetView {
  return {
    contextWindow: 128_000,
    usable: 111_616,
    used: 53_100,
    reserved: 16_384,
    percent: 47.57,
    estimated: false,
    unknown: false,
    exact: true,
    breakdown: { system: 2100, instructions: 0, tools: 3400, summary: 1800, messages: 21_000, toolResults: 24_800, free: 58_516 },
    model: 'gpt-4.1-mini',
    windowSource: "from the model's metadata",
    windowKnown: true,
    autoCompaction: true,
    ...overrides,
  };
}

describe('formatTokens', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1k'],
    [1049, '1k'],
    [1050, '1.1k'],
    [53_100, '53.1k'],
    [111_616, '111.6k'],
    [999_949, '999.9k'],
    [999_950, '1M'],
    [1_250_000, '1.25M'],
    [10_000_000, '10M'],
    [-5, '0'],
    [Number.NaN, '0'],
    [Number.POSITIVE_INFINITY, '0'],
  ])('%d → %s', (tokens, text) => {
    expect(formatTokens(tokens)).toBe(text);
  });
});

describe('budgetStatusText', () => {
  it('shows percent and used/usable with the pie chart icon', () => {
    expect(budgetStatusText(budget())).toBe('$(pie-chart) 48% 53.1k/111.6k');
  });
  it('shows no percentage of an assumed window when the window is unknown, and no warning colour', () => {
    const view = budget({ windowKnown: false, windowSource: 'no source told us', percent: 95 });
    expect(budgetStatusText(view)).toBe('$(pie-chart) 53.1k/? window');
    expect(budgetLevel(view.percent, { warningPercent: 70, errorPercent: 90 }, view.windowKnown)).toBe('normal');
    expect(budgetTooltipMarkdown(view)).toContain('Window: unknown (assuming 128k; no source told us)');
    expect(budgetAccessibilityLabel(view)).toMatch(/window is unknown/);
  });
  it("says so when the endpoint's usage report was not believed", () => {
    const view = budget({ reportNote: "The endpoint's last usage report was not believed: 4,096 prompt tokens for a prompt we count at 31,200." });
    expect(budgetStatusText(view)).toBe('$(pie-chart) 48% 53.1k/111.6k $(info)');
    expect(budgetTooltipMarkdown(view)).toContain('not believed');
    expect(budgetAccessibilityLabel(view)).toContain('not believed');
  });
  it('marks estimates with ~ and unknown counts with ?, unknown winning', () => {
    expect(budgetStatusText(budget({ estimated: true }))).toBe('$(pie-chart) ~48% 53.1k/111.6k');
    expect(budgetStatusText(budget({ unknown: true }))).toBe('$(pie-chart) ?48% 53.1k/111.6k');
    expect(budgetMark({ estimated: true, unknown: true })).toBe('?');
    expect(budgetMark({ estimated: false, unknown: false })).toBe('');
  });
  it('never shows a negative or NaN percent', () => {
    expect(formatPercent(-3)).toBe('0%');
    expect(formatPercent(Number.NaN)).toBe('0%');
    expect(formatPercent(130.4)).toBe('130%');
  });
});

describe('budgetLevel', () => {
  const thresholds = { warningPercent: 70, errorPercent: 90 };
  it.each([
    [0, 'normal'],
    [69.9, 'normal'],
    [70, 'warning'],
    [89.99, 'warning'],
    [90, 'error'],
    [150, 'error'],
    [Number.NaN, 'normal'],
  ] as const)('%d%% → %s', (percent, level) => {
    expect(budgetLevel(percent, thresholds)).toBe(level);
  });
  it('lets the error threshold win when it is set below the warning one', () => {
    expect(budgetLevel(60, { warningPercent: 80, errorPercent: 50 })).toBe('error');
  });
});

describe('the level without colour (High Contrast has no warning background; a screen reader hears no colour)', () => {
  const thresholds = { warningPercent: 70, errorPercent: 90 };
  it('gives each level its own icon, tooltip line and words at the start of the accessible name', () => {
    const normal = budget({ percent: 48 });
    const warning = budget({ percent: 75, used: 83_700 });
    const error = budget({ percent: 95, used: 106_000 });
    const texts = [budgetStatusText(normal, 'normal'), budgetStatusText(warning, 'warning'), budgetStatusText(error, 'error')];
    expect(texts).toEqual(['$(pie-chart) 48% 53.1k/111.6k', '$(warning) 75% 83.7k/111.6k', '$(error) 95% 106k/111.6k']);
    expect(budgetAccessibilityLabel(normal, 'normal', thresholds)).toBe('Context budget: 48% used, 53.1k of 111.6k usable tokens, exact. Auto-compaction on.');
    expect(budgetAccessibilityLabel(warning, 'warning', thresholds)).toMatch(/^Context budget, warning: filling up \(70% or more used\): 75% used, 83.7k of 111.6k usable tokens/);
    expect(budgetAccessibilityLabel(error, 'error', thresholds)).toMatch(/^Context budget, error: nearly full \(90% or more used\): 95% used/);
    expect(budgetTooltipMarkdown(warning, new Date(), 'warning', thresholds)).toContain('$(warning) warning: filling up (70% or more used)');
    expect(budgetTooltipMarkdown(error, new Date(), 'error', thresholds)).toContain('$(error) error: nearly full (90% or more used)');
    expect(budgetTooltipMarkdown(normal, new Date(), 'normal', thresholds)).not.toMatch(/warning|error/i);
  });
});

describe('budgetTooltipMarkdown', () => {
  const now = new Date('2025-01-01T12:00:00Z');
  it('lists the breakdown, reserve, model, window source, auto-compaction and last compaction', () => {
    const text = budgetTooltipMarkdown(
      budget({ lastCompaction: { when: '2025-01-01T11:18:00Z', tokensBefore: 98_000, tokensAfter: 31_000 } }),
      now,
    );
    for (const row of ['| System prompt | 2.1k |', '| Tools | 3.4k |', '| Summary | 1.8k |', '| Messages | 21k |', '| Tool results | 24.8k |', '| Free | 58.5k |', '| Reserved for output | 16.4k |']) {
      expect(text).toContain(row);
    }
    expect(text).toContain("128k (from the model's metadata)");
    expect(text).toContain('Auto-compaction: on');
    expect(text).toContain('Last compaction: 98k → 31k, 42 min. ago');
  });
  it('escapes a hostile model name so it cannot add markup, links or table columns', () => {
    const text = budgetTooltipMarkdown(budget({ model: 'evil | [x](command:workbench.action.quit) <img src=x>\n# big' }), now);
    const modelLine = text.split('\n').find((line) => line.startsWith('Model:'));
    expect(modelLine).toBeDefined();
    expect(modelLine).not.toMatch(/(^|[^\\])[[\]()<>|#]/);
    expect(escapeMarkdownCell('a|b')).toBe('a\\|b');
  });
  it('says none when there was no compaction and off when auto-compaction is off', () => {
    const text = budgetTooltipMarkdown(budget({ autoCompaction: false }), now);
    expect(text).toContain('Last compaction: none');
    expect(text).toContain('Auto-compaction: off');
  });
});

describe('formatAgo and the accessibility label', () => {
  const now = new Date('2025-01-02T00:00:00Z');
  it('formats elapsed time and survives a bad timestamp', () => {
    expect(formatAgo('2025-01-01T23:59:30Z', now)).toBe('just now');
    expect(formatAgo('2025-01-01T21:00:00Z', now)).toBe('3 hr. ago');
    expect(formatAgo('2025-01-01T21:00:00Z', now, 'de-DE')).toBe('vor 3 Std.');
    expect(formatAgo('2024-12-30T00:00:00Z', now)).toBe('3 days ago');
    expect(formatAgo('not a date', now)).toBe('at an unknown time');
  });
  it('reads the budget in words', () => {
    expect(budgetAccessibilityLabel(budget({ estimated: true, exact: false }))).toBe(
      'Context budget: 48% used, 53.1k of 111.6k usable tokens, estimate. Auto-compaction on.',
    );
  });
});

describe('a window unknown until the server loads the model', () => {
  it('shows "until loaded" instead of a number in the status bar, the tooltip, the window label and the screen-reader text', () => {
    const view = budget({ windowKnown: false, windowUntilLoaded: true, windowSource: 'Ollama /api/show context_length (trained length; unknown until loaded)' });
    expect(budgetStatusText(view)).toBe('$(pie-chart) 53.1k/? until loaded');
    expect(budgetTooltipMarkdown(view)).toMatch(/window unknown until loaded/);
    expect(windowLabel(view)).toBe('unknown until loaded (Ollama /api/show context_length (trained length; unknown until loaded))');
    expect(windowLabel(view)).not.toMatch(/128k/);
    expect(budgetAccessibilityLabel(view)).toMatch(/unknown until the server loads it/);
    expect(budgetLevel(99, { warningPercent: 70, errorPercent: 90 }, view.windowKnown)).toBe('normal');
  });
});
