// Calibration: the content and tool-definition ratios learned from usage reports, and reports that are not believed.
import { describe, expect, it } from 'vitest';
import { Calibration, judgeReport } from '../../src/core/budget/calibration';

/** A server that counts content at `content`× our count and renders tools at `tools`× our count. */
function server(content: number, tools: number): (counted: { content: number; tools: number }) => number {
  return (counted) => Math.round(counted.content * content + counted.tools * tools);
}

describe('Calibration', () => {
  it('is uncalibrated (ratio 1, tools unknown) until a usable report arrives', () => {
    const calibration = new Calibration('llama');
    expect(calibration.calibrated).toBe(false);
    expect(calibration.toolsRatio).toBeUndefined();
    expect(calibration.apply(1000)).toBe(1000);
    expect(calibration.observe({ reported: 0, content: 5000, tools: 0 }).believed).toBe(false);
    expect(calibration.calibrated).toBe(false);
  });

  it('learns the content ratio from consecutive calls, where the tool definitions cancel out', () => {
    const count = server(1.25, 1.8);
    const calibration = new Calibration('qwen');
    for (const content of [2_000, 4_000, 7_000, 9_500, 14_000]) {
      calibration.observe({ reported: count({ content, tools: 6_000 }), content, tools: 6_000 });
    }
    expect(calibration.contentRatio).toBeCloseTo(1.25, 2);
    expect(calibration.toolsRatio).toBeCloseTo(1.8, 2);
    expect(calibration.calibrated).toBe(true);
  });

  it('estimates the tools ratio from the very first call, which the tool definitions dominate', () => {
    const calibration = new Calibration('qwen');
    calibration.observe({ reported: server(1.25, 1.5)({ content: 600, tools: 7_000 }), content: 600, tools: 7_000 });
    expect(calibration.toolsRatio).toBeGreaterThan(1.5);
    expect(calibration.toolsRatio).toBeLessThan(1.56);
  });

  it('takes the median, so one odd report does not move it, and survives a round trip through JSON', () => {
    const count = server(0.8, 1);
    const calibration = new Calibration('mistral');
    const contents = [1_000, 3_000, 5_000, 7_000, 9_000, 11_000];
    contents.forEach((content, index) => {
      const reported = index === 3 ? count({ content, tools: 1_000 }) * 1.9 : count({ content, tools: 1_000 });
      calibration.observe({ reported, content, tools: 1_000 });
    });
    expect(calibration.contentRatio).toBeCloseTo(0.8, 1);
    const restored = Calibration.fromJSON(JSON.parse(JSON.stringify(calibration)), 'mistral');
    expect(restored.contentRatio).toBe(calibration.contentRatio);
    expect(restored.toolsRatio).toBe(calibration.toolsRatio);
    expect(Calibration.fromJSON(calibration.toJSON(), 'other-model').calibrated).toBe(false);
    expect(Calibration.fromJSON({ version: 2, model: 'mistral', observations: [[1, 'x', 2], 'junk'] }, 'mistral').calibrated).toBe(false);
  });

  it('reads the first persisted format (ratios) as its prior', () => {
    const restored = Calibration.fromJSON({ model: 'llama', ratios: [1.1, 1.12, 9] }, 'llama');
    expect(restored.contentRatio).toBeCloseTo(1.11, 2);
    expect(restored.calibrated).toBe(false);
  });
});

describe('judgeReport', () => {
  it('does not believe a report far below our count (a truncating Ollama reports its num_ctx)', () => {
    const verdict = judgeReport(4_096, 31_200);
    expect(verdict.believed).toBe(false);
    if (!verdict.believed) expect(verdict.reason).toMatch(/truncated/);
    const calibration = new Calibration('llama3');
    expect(calibration.observe({ reported: 4_096, content: 25_000, tools: 6_200 }).believed).toBe(false);
    expect(calibration.calibrated).toBe(false);
  });

  it('does not believe a report above the window, absurd numbers, or far above our count', () => {
    expect(judgeReport(140_000, 120_000, 131_072).believed).toBe(false);
    expect(judgeReport(1e308, 1_000).believed).toBe(false);
    expect(judgeReport(Number.NaN, 1_000).believed).toBe(false);
    expect(judgeReport(-5, 1_000).believed).toBe(false);
    expect(judgeReport(50_000, 10_000).believed).toBe(false);
  });

  it('believes ordinary tokenizer differences in both directions', () => {
    expect(judgeReport(12_500, 10_000, 131_072).believed).toBe(true);
    expect(judgeReport(8_000, 10_000).believed).toBe(true);
    expect(judgeReport(150, 20).believed).toBe(true);
  });
});
