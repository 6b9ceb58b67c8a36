// Budget arithmetic, context-window resolution and the proactive/after-step/reactive decisions.
import { describe, expect, it } from 'vitest';
import { computeBudget, decideAfterStep, decideBeforeCall, decideOnOverflowError, effectiveReserve, shouldPrune, type BudgetBreakdown } from '../../src/core/budget/budget';
import { resolveContextWindow } from '../../src/core/budget/contextWindow';
import { Calibration } from '../../src/core/tokens/calibration';

const counted = (messages: number, toolResults = 0): BudgetBreakdown => ({ system: 1000, tools: 2000, summary: 0, messages, toolResults });
const base = { contextWindow: 128_000, maxOutputTokens: 8192, reserveTokens: 16_384, exact: true };
const settings = { autoCompact: true, pruningEnabled: true, prunableTokens: 0 };

describe('resolveContextWindow', () => {
  it('prefers the setting, then model metadata, then the endpoint list, then 128k', () => {
    expect(resolveContextWindow({ setting: 32_000, modelMetadata: { contextWindow: 200_000 }, endpointList: 64_000 })).toEqual({ tokens: 32_000, source: 'setting' });
    expect(resolveContextWindow({ setting: 0, modelMetadata: { contextWindow: 200_000 }, endpointList: 64_000 })).toEqual({ tokens: 200_000, source: 'model' });
    expect(resolveContextWindow({ setting: 0, modelMetadata: null, endpointList: 64_000 })).toEqual({ tokens: 64_000, source: 'endpoint' });
    expect(resolveContextWindow({ setting: Number.NaN, modelMetadata: { contextWindow: -1 }, endpointList: 0 })).toEqual({ tokens: 128_000, source: 'default' });
    expect(resolveContextWindow({})).toEqual({ tokens: 128_000, source: 'default' });
  });
});

describe('computeBudget', () => {
  it('reserves max(reserve, max output) so a long reply cannot overflow', () => {
    expect(effectiveReserve(16_384, 8192, 128_000)).toBe(16_384);
    expect(effectiveReserve(16_384, 32_768, 128_000)).toBe(32_768);
    expect(effectiveReserve(16_384, 32_768, 32_000)).toBe(16_000);
    const budget = computeBudget({ ...base, maxOutputTokens: 32_768, counted: counted(10_000, 5_000) });
    expect(budget.outputReserve).toBe(32_768);
    expect(budget.usable).toBe(128_000 - 32_768);
  });

  it('fills the breakdown and marks an uncalibrated, unanchored figure as an estimate', () => {
    const budget = computeBudget({ ...base, counted: counted(10_000, 5_000) });
    expect(budget.used).toBe(18_000);
    expect(budget.breakdown).toEqual(counted(10_000, 5_000));
    expect(budget.usable).toBe(128_000 - 16_384);
    expect(budget.free).toBe(budget.usable - 18_000);
    expect(budget.estimated).toBe(true);
    expect(budget.exact).toBe(true);
  });

  it('anchors on the last report and adds the calibrated count of what was appended since', () => {
    const calibration = new Calibration('llama');
    calibration.observe(12_000, 10_000);
    const budget = computeBudget({ ...base, exact: false, calibration, counted: counted(10_000, 5_000), lastReport: { promptTokens: 16_500, countedPrompt: 15_000 } });
    expect(budget.used).toBe(16_500 + 3_600);
    expect(budget.estimated).toBe(false);
    const shrunk = computeBudget({ ...base, calibration, counted: counted(1_000), lastReport: { promptTokens: 16_500, countedPrompt: 15_000 } });
    expect(shrunk.used).toBe(Math.round(4_000 * 1.2));
  });
});

describe('decisions', () => {
  const at = (used: number) => computeBudget({ ...base, counted: { system: 0, tools: 0, summary: 0, messages: used, toolResults: 0 } });

  it('does nothing below the prune threshold, even if pruning is possible', () => {
    expect(shouldPrune(at(50_000))).toBe(false);
    expect(decideBeforeCall(at(50_000), { ...settings, prunableTokens: 40_000 })).toBe('ok');
  });

  it('prunes above the threshold when pruning alone brings it under, else compacts on overflow', () => {
    const usable = 128_000 - 16_384;
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, prunableTokens: 30_000 })).toBe('prune');
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, prunableTokens: 1_000 })).toBe('compact');
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, pruningEnabled: false, prunableTokens: 30_000 })).toBe('compact');
    expect(decideBeforeCall(at(usable - 1_000), settings)).toBe('ok');
    expect(decideBeforeCall(at(usable + 5_000), { ...settings, autoCompact: false })).toBe('ok');
  });

  it('checks reported usage after a step and retries an overflow error once', () => {
    const budget = at(10_000);
    expect(decideAfterStep({ promptTokens: 110_000, completionTokens: 3_000 }, budget, settings)).toBe('compact');
    expect(decideAfterStep({ promptTokens: 9_000, completionTokens: 500 }, budget, settings)).toBe('ok');
    expect(decideOnOverflowError(0)).toBe('compact-and-retry');
    expect(decideOnOverflowError(1)).toBe('fail');
  });
});
