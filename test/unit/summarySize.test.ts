// The summary size setting (compaction.summaryTokens): bounds the summary, is told to the summarizing model, stays sane at 8k and 1M.
import { describe, expect, it } from 'vitest';
import { thresholdsFor } from '../../src/core/budget/thresholds';
import { summaryMessages } from '../../src/core/compaction/summaryPrompt';
import { defaultSettings, parseSettings } from '../../src/core/settings/settings';

describe('summary size setting', () => {
  it('defaults to 10 % of the window within 1024–13107, at 8k and at 1M', () => {
    expect(thresholdsFor(8_192, defaultSettings()).summaryTokens).toBe(1024);
    expect(thresholdsFor(1_000_000, defaultSettings()).summaryTokens).toBe(13_107);
  });

  it('uses an explicit size, but never more than a quarter of the usable budget', () => {
    const settings = parseSettings((key) => (key === 'compaction.summaryTokens' ? 4000 : undefined)).settings;
    expect(thresholdsFor(200_000, settings).summaryTokens).toBe(4000);
    const small = thresholdsFor(8_192, settings);
    expect(small.summaryTokens).toBe(Math.floor(small.usable / 4));
  });

  it('tells the summarizing model the size', () => {
    const [, user] = summaryMessages({ transcript: '[user]\nfix it', maxTokens: 500 });
    expect(user?.content).toContain('within 500 tokens');
  });

  it('rejects a negative size with a warning and uses the default', () => {
    const parsed = parseSettings((key) => (key === 'compaction.summaryTokens' ? -5 : undefined));
    expect(parsed.settings.compaction.summaryTokens).toBe(0);
    expect(parsed.warnings.map((w) => w.key)).toContain('compaction.summaryTokens');
  });
});
