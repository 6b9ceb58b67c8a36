// The meter's pieces: context-window resolution, thresholds that scale with the window, and the before-call decision.
import { describe, expect, it } from 'vitest';
import { compactAtTokens, decideBeforeCall, type Budget } from '../../src/core/budget/budget';
import { resolveContextWindow } from '../../src/core/llm/contextWindow';
import { RULES, thresholdsFor } from '../../src/core/budget/thresholds';
import { defaultSettings } from '../../src/core/settings/settings';

const settings = { autoCompact: true, pruningEnabled: true, prunableTokens: 0, pruneAtPercent: 80, compactAt: Number.POSITIVE_INFINITY };

describe('resolveContextWindow', () => {
  it('prefers the setting, then model metadata, then the endpoint list, then 128k', () => {
    expect(resolveContextWindow({ setting: 32_000, modelMetadata: { contextWindow: 200_000 }, endpointList: 64_000 })).toEqual({ tokens: 32_000, source: 'setting' });
    expect(resolveContextWindow({ setting: 0, modelMetadata: { contextWindow: 200_000 }, endpointList: 64_000 })).toEqual({ tokens: 200_000, source: 'model' });
    expect(resolveContextWindow({ setting: 0, modelMetadata: null, endpointList: 64_000 })).toEqual({ tokens: 64_000, source: 'endpoint' });
    expect(resolveContextWindow({ setting: Number.NaN, modelMetadata: { contextWindow: -1 }, endpointList: 0 })).toEqual({ tokens: 128_000, source: 'default' });
    expect(resolveContextWindow({})).toEqual({ tokens: 128_000, source: 'default' });
  });
});

describe('thresholds scale with the window', () => {
  const defaults = defaultSettings();

  it("keep the seeds' numbers at a 200k window, and half pi's kept tail", () => {
    const at200k = thresholdsFor(200_000, defaults);
    expect(at200k.outputReserve).toBe(16_384);
    expect(at200k.keepRecent).toBe(10_000);
    expect(thresholdsFor(32_000, defaults).keepRecent).toBe(2_000);
    expect(thresholdsFor(8_192, defaults).keepRecent).toBe(1_024);
    expect(at200k.pruneProtect).toBe(40_000);
    expect(at200k.pruneMinimum).toBe(20_000);
    expect(thresholdsFor(1_000_000, defaults).pruneMinimum).toBe(40_000);
    expect(at200k.summaryTokens).toBe(13_107);
    expect(at200k.toolOutputChars).toBe(24_000);
    expect(at200k.usable).toBe(200_000 - 16_384);
  });

  it('shrink with small windows so an 8k model keeps room for a prompt and pruning can fire at 32k', () => {
    const at8k = thresholdsFor(8_192, defaults);
    expect(at8k.outputReserve).toBe(1_024);
    expect(at8k.usable).toBe(8_192 - 1_024);
    expect(at8k.keepRecent).toBeLessThan(at8k.usable / 4);
    expect(at8k.toolOutputChars).toBe(4_000);
    const at32k = thresholdsFor(32_768, defaults);
    expect(at32k.pruneProtect + at32k.pruneMinimum).toBeLessThan(at32k.usable);
    expect(at32k.outputReserve).toBeLessThan(4_000);
  });

  it('prune from 80 % below 24k, never on their own from 24k to 400k (compaction instead), and from 10 % at huge windows (nothing compacts there)', () => {
    expect(thresholdsFor(8_192, defaults)).toMatchObject({ pruneAtPercent: 80, autoPrune: true });
    expect(thresholdsFor(23_999, defaults).autoPrune).toBe(true);
    expect(thresholdsFor(24_000, defaults).autoPrune).toBe(false);
    expect(thresholdsFor(128_000, defaults).autoPrune).toBe(false);
    expect(thresholdsFor(200_000, defaults).autoPrune).toBe(false);
    expect(thresholdsFor(399_999, defaults).autoPrune).toBe(false);
    const at1m = thresholdsFor(1_000_000, defaults);
    expect(at1m).toMatchObject({ pruneAtPercent: 10, autoPrune: true });
    // A 1M session at 15 % with old outputs past the protected tail prunes them; the same fill at 200k does not.
    const used = Math.round(at1m.usable * 0.15);
    const budget: Budget = {
      contextWindow: at1m.window,
      windowKnown: true,
      outputReserve: at1m.outputReserve,
      usable: at1m.usable,
      used,
      basis: 'report',
      estimated: false,
      exact: true,
      breakdown: { system: 0, instructions: 0, tools: 0, summary: 0, messages: used, toolResults: 0 },
      free: at1m.usable - used,
      percent: (used / at1m.usable) * 100,
    };
    const base = { ...settings, prunableTokens: at1m.pruneMinimum };
    expect(decideBeforeCall(budget, { ...base, pruneAtPercent: at1m.pruneAtPercent })).toBe('prune');
    const at200k = thresholdsFor(200_000, defaults);
    expect(decideBeforeCall(budget, { ...base, pruningEnabled: at200k.autoPrune, pruneAtPercent: at200k.pruneAtPercent })).toBe('ok');
  });

  it('are monotonic in the window and always inside their clamps', () => {
    let previous = thresholdsFor(4_096, defaults);
    for (let window = 4_096; window <= 2_000_000; window = Math.round(window * 1.3)) {
      const current = thresholdsFor(window, defaults);
      for (const key of ['outputReserve', 'keepRecent', 'pruneProtect', 'pruneMinimum', 'summaryTokens', 'toolOutputChars'] as const) {
        expect(current[key]).toBeGreaterThanOrEqual(previous[key]);
      }
      expect(current.outputReserve).toBeLessThanOrEqual(Math.max(RULES.outputReserve.max, 0));
      expect(current.usable + current.outputReserve).toBe(window);
      previous = current;
    }
  });

  it("honour a user's explicit values, but never reserve more than half the window", () => {
    const custom = defaultSettings();
    custom.compaction.reserveTokens = 4_000;
    custom.compaction.keepRecentTokens = 9_000;
    custom.pruning.protectTokens = 123;
    custom.tools.outputMaxChars = 10;
    const at64k = thresholdsFor(64_000, custom);
    expect(at64k.outputReserve).toBe(4_000);
    expect(at64k.keepRecent).toBe(9_000);
    expect(at64k.pruneProtect).toBe(123);
    expect(at64k.toolOutputChars).toBe(1_000);
    custom.context.maxOutputTokens = 8_000;
    expect(thresholdsFor(16_384, custom).outputReserve).toBe(8_000);
    expect(thresholdsFor(8_192, custom).outputReserve).toBe(4_096);
  });
});

describe('decideBeforeCall', () => {
  const usable = 100_000;
  const at = (used: number): Budget => ({
    contextWindow: 110_000,
    windowKnown: true,
    outputReserve: 10_000,
    usable,
    used,
    basis: 'report',
    estimated: false,
    exact: true,
    breakdown: { system: 0, instructions: 0, tools: 0, summary: 0, messages: used, toolResults: 0 },
    free: Math.max(0, usable - used),
    percent: (used / usable) * 100,
  });

  it('does nothing below the prune threshold, even if pruning is possible', () => {
    expect(decideBeforeCall(at(50_000), { ...settings, prunableTokens: 40_000 })).toBe('ok');
  });

  it('prunes above the threshold when pruning alone brings it under, else compacts on overflow', () => {
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, prunableTokens: 30_000 })).toBe('prune');
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, prunableTokens: 1_000 })).toBe('compact');
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, pruningEnabled: false, prunableTokens: 30_000 })).toBe('compact');
    expect(decideBeforeCall(at(usable - 1_000), settings)).toBe('ok');
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, autoCompact: false })).toBe('ok');
  });

  it('compacts at a trigger percent below the usable budget, never under what a compaction leaves', () => {
    const half = compactAtTokens(at(0), { keepRecent: 20_000, summaryTokens: 13_107 }, 50);
    expect(half).toBe(Math.floor(usable / 2));
    expect(decideBeforeCall(at(half + 1_000), { ...settings, compactAt: half })).toBe('compact');
    expect(decideBeforeCall(at(half + 1_000), { ...settings, compactAt: half, prunableTokens: 5_000 })).toBe('prune');
    expect(decideBeforeCall(at(half - 1_000), { ...settings, compactAt: half })).toBe('ok');
    // At a small budget the floor wins: fixed prompt + summary room + kept tail.
    const small = { ...at(0), usable: 7_000, breakdown: { ...at(0).breakdown, system: 2_000, tools: 1_500 } };
    expect(compactAtTokens(small, { keepRecent: 1_024, summaryTokens: 1_024 }, 10)).toBe(5_548);
    expect(compactAtTokens(at(0), { keepRecent: 20_000, summaryTokens: 13_107 }, 0)).toBe(usable);
  });
});
