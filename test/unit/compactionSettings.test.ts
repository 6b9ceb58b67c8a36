// Compaction tuning users ask for: standing summary instructions and a window per model, validated like every setting.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { proposeCompaction } from '../../src/core/compaction/compaction';
import { defaultSettings, parseSettings, windowSettingFor, type SettingKey } from '../../src/core/settings/settings';
import { recordingSummarizer, tempSession, type TempSession } from '../support/agentFakes';

let session: TempSession;
beforeEach(async () => {
  session = await tempSession();
});
afterEach(async () => {
  await session.cleanup();
});

describe('compaction settings', () => {
  it('standing-summary-instructions-come-before-the-compact-instructions', async () => {
    for (let t = 0; t < 6; t++) {
      await session.log.append({ type: 'user', text: `request ${t}: ${'look at the build log and the failing tests '.repeat(20)}` });
      await session.log.append({ type: 'assistant', text: `answer ${t}: ${'the failing test is the umlaut case '.repeat(20)}`, toolCalls: [] });
    }
    const settings = defaultSettings();
    settings.compaction.customInstructions = 'Always keep exact error messages.';
    const summarizer = recordingSummarizer();
    await proposeCompaction(session.log, {
      counter: session.counter,
      cache: session.cache,
      settings,
      contextWindow: 8192,
      systemPrompt: 'You are a coding agent.',
      systemRole: 'system',
      tools: [],
      summarize: summarizer.summarize,
      signal: new AbortController().signal,
      instructions: 'Focus on the parser.',
      force: true,
    });
    expect(summarizer.calls[0]?.instructions).toBe('Always keep exact error messages.\n\nFocus on the parser.');
  });

  it('a-window-per-model-wins-and-bad-entries-are-dropped-with-a-warning', () => {
    const raw: Partial<Record<SettingKey, unknown>> = {
      'context.windowTokens': 16_000,
      'context.windowOverrides': { 'qwen2.5-coder:7b': 32_768, 'tiny-model': 12, 'text-model': 'big' },
    };
    const { settings, warnings } = parseSettings((key) => raw[key]);
    expect(settings.context.windowOverrides).toEqual({ 'qwen2.5-coder:7b': 32_768 });
    expect(warnings.map((warning) => warning.message).filter((message) => message.includes('windowOverrides'))).toHaveLength(2);
    expect(windowSettingFor(settings, 'qwen2.5-coder:7b')).toBe(32_768);
    expect(windowSettingFor(settings, 'other')).toBe(16_000);
    expect(windowSettingFor(settings, 'toString')).toBe(16_000);
  });

  it('a-window-map-that-is-not-an-object-falls-back-to-none', () => {
    const { settings, warnings } = parseSettings((key) => (key === 'context.windowOverrides' ? [32_768] : undefined));
    expect(settings.context.windowOverrides).toEqual({});
    expect(warnings).toHaveLength(1);
  });
});
