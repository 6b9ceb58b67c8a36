// The one meter: the trigger, the cut plan, the shrink guard and the notices all read the same number, in the endpoint's units.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyCompaction, proposeCompaction } from '../../src/core/compaction/compaction';
import { newRequestProgress, prepareContext, type GateState } from '../../src/core/agent/contextGate';
import { Calibration } from '../../src/core/budget/calibration';
import { measureContext, requestOutputTokens, type CountingDeps } from '../../src/core/budget/meter';
import { selectTools } from '../../src/core/budget/toolSelection';
import type { ChatToolDefinition } from '../../src/core/context/chatMessage';
import { defaultSettings } from '../../src/core/settings/settings';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { recordingSummarizer, tempSession, type TempSession } from '../support/agentFakes';

let session: TempSession;
beforeEach(async () => {
  session = await tempSession();
});
afterEach(async () => {
  await session.cleanup();
});

const line = (n: number): string => `line ${n}: ${'the quick brown fox reads the build log and notes the failing test '.repeat(3)}`;
const text = (lines: number, seed = 0): string => Array.from({ length: lines }, (_, i) => line(i + seed)).join('\n');

/** Appends `turns` turns of one user message, one read_file call and its output (~`lines` lines). */
async function turns(count: number, lines: number, start = 0): Promise<void> {
  for (let t = start; t < start + count; t++) {
    await session.log.append({ type: 'user', text: `Please look at part ${t} of the log.` });
    await session.log.append({ type: 'assistant', text: '', toolCalls: [{ id: `call_${t}`, name: 'read_file', arguments: JSON.stringify({ path: `log${t}.txt` }) }] });
    await session.log.append({ type: 'toolResult', toolCallId: `call_${t}`, toolName: 'read_file', isError: false, content: text(lines, t * 1000) });
    await session.log.append({ type: 'assistant', text: `Part ${t} shows nothing unusual.`, toolCalls: [] });
  }
}

function deps(window: number, calibration?: Calibration, tools: readonly ChatToolDefinition[] = []): CountingDeps {
  return {
    counter: session.counter,
    cache: session.cache,
    ...(calibration ? { calibration } : {}),
    settings: defaultSettings(),
    contextWindow: window,
    systemPrompt: 'You are a coding agent.',
    systemRole: 'system',
    tools,
  };
}

/** A calibration learned from a server that counts content at `ratio`× o200k. */
function calibratedAt(ratio: number): Calibration {
  const calibration = new Calibration('llama-3.1-8b');
  for (const content of [1_000, 3_000, 5_000, 8_000]) calibration.observe({ reported: Math.round(content * ratio), content, tools: 0 });
  return calibration;
}

describe('one meter', () => {
  it('a calibrated model (1.25×) over budget by its calibrated count gets a compaction, not a null proposal', async () => {
    await turns(12, 22);
    const calibration = calibratedAt(1.25);
    const measured = measureContext(session.log.path(), deps(16_384, calibration));
    // Raw below the usable budget, calibrated above it: the case where the old plan said "not needed".
    expect(measured.countedPrompt).toBeLessThan(measured.budget.usable);
    expect(measured.budget.used).toBeGreaterThan(measured.budget.usable);
    const summarizer = recordingSummarizer();
    const proposal = await proposeCompaction(session.log, { ...deps(16_384, calibration), summarize: summarizer.summarize, signal: new AbortController().signal });
    expect(proposal).not.toBeNull();
    expect(summarizer.calls).toHaveLength(1);
    // Before and after in the same units: the shrink guard compares like with like.
    expect(proposal!.tokensBefore).toBe(measured.budget.used);
    expect(proposal!.tokensAfter).toBeLessThan(measured.budget.usable);
    // "After" is the meter's own measure of the context once applied, not a sum made beside it.
    await applyCompaction(session.log, proposal!, { summary: proposal!.summary, edited: false, auto: true, deps: deps(16_384, calibration) });
    expect(measureContext(session.log.path(), deps(16_384, calibration)).budget.used).toBe(proposal!.tokensAfter);
  });

  it('the gate makes room for a calibrated context before the call: prunes when that suffices, else compacts', async () => {
    await turns(12, 22);
    const calibration = calibratedAt(1.25);
    for (const pruning of [true, false]) {
      const settings = defaultSettings();
      settings.pruning.enabled = pruning;
      const state: GateState = { log: session.log, deps: { ...deps(16_384, calibration), settings }, summarize: recordingSummarizer().summarize, signal: new AbortController().signal, modelId: 'llama-3.1-8b', request: newRequestProgress() };
      const events = [];
      const gate = prepareContext(state);
      let next = await gate.next();
      while (!next.done) {
        events.push(next.value.type);
        next = await gate.next();
      }
      expect(events).toContain(pruning ? 'prune' : 'compaction');
      expect(next.value).not.toBe('stop');
      const after = measureContext(session.log.path(), { ...deps(16_384, calibration), settings });
      expect(after.budget.used).toBeLessThanOrEqual(after.budget.usable);
      // Grow the session past the budget again for the next round.
      for (let more = 100; measureContext(session.log.path(), { ...deps(16_384, calibration), settings }).budget.used <= 16_384 - 1_343; more++) await turns(1, 22, more);
    }
  });

  it('does not believe an under-reported prompt (a truncating server) and says so', async () => {
    await turns(10, 40);
    const path = session.log.path();
    const honest = measureContext(path, deps(16_384));
    await session.log.append({ type: 'assistant', text: 'ok', toolCalls: [], model: 'gpt-4o', usage: { promptTokens: 4_096, completionTokens: 10 } });
    const measured = measureContext(session.log.path(), deps(16_384));
    expect(measured.budget.used).toBeGreaterThan(honest.budget.used);
    expect(measured.budget.basis).not.toBe('report');
    expect(measured.budget.reportNote).toMatch(/not believed/);
    expect(measured.budget.percent).toBeGreaterThan(100);
  });

  it('never asks for more output than fits: prompt + max_tokens stays inside the window', async () => {
    await turns(3, 30);
    for (const window of [8_192, 16_384, 32_768, 131_072, 1_048_576]) {
      const measured = measureContext(session.log.path(), deps(window));
      if (measured.budget.used > measured.budget.usable) continue;
      const requested = requestOutputTokens(measured, { settings: defaultSettings() });
      expect(measured.budget.used + requested).toBeLessThanOrEqual(window);
      expect(requested).toBeGreaterThanOrEqual(Math.min(measured.thresholds.outputReserve, 16_384) * 0.5);
      expect(requested).toBeLessThanOrEqual(16_384);
    }
  });

  it('at 8k with three dozen VS Code tools, offers fewer tools so the first message fits', () => {
    const vscodeTools = Array.from({ length: 36 }, (_, i) => ({
      name: `vscode_tool_${i}`,
      description: `A VS Code tool number ${i} that searches, edits or inspects the workspace in some helpful way. `.repeat(2),
      inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'What to look for, in detail' }, maxResults: { type: 'number', description: 'How many results to return' } }, required: ['query'] },
    }));
    const builtIn = new ToolRegistry().definitions();
    const llama = { ...deps(8_192), counter: session.counter };
    const selection = selectTools({
      builtIn,
      optional: vscodeTools,
      definition: (tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }),
      counter: session.counter,
      contextWindow: 8_192,
      settings: defaultSettings(),
    });
    expect(selection.dropped.length).toBeGreaterThan(0);
    expect(selection.tokens).toBeLessThanOrEqual(Math.max(selection.limit, session.counter.countTools(builtIn)));
    const offered = [...builtIn, ...selection.chosen.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }))];
    const first = measureContext(session.log.path(), { ...llama, tools: offered });
    expect(first.budget.used).toBeLessThan(first.budget.usable);
  });
});
