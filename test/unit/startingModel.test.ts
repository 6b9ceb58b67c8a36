// The model and window a session shows before its own first request: the session it follows, else the latest request's, the setting first.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_WINDOW } from '../../src/core/llm/contextWindow';
import { defaultSettings } from '../../src/core/settings/settings';
import type { Settings } from '../../src/core/settings/settings';
import { startingModel } from '../../src/vscode/sessions/startingModel';

const listed = { id: 'qwen2.5-coder', contextWindow: 8000, windowSource: 'endpoint' as const, windowDetail: "from the endpoint's model list" };

function withWindow(tokens: number, overrides: Record<string, number> = {}): Settings {
  const settings = defaultSettings();
  return { ...settings, context: { ...settings.context, windowTokens: tokens, windowOverrides: overrides } };
}

describe('startingModel', () => {
  it('takes the session it follows (a hand-off, /new) before the remembered latest request', () => {
    expect(startingModel(defaultSettings(), listed, { id: 'other', contextWindow: 200_000, windowSource: 'model' })).toEqual(listed);
  });

  it('after a reload, the latest request’s model and window (the endpoint’s 8,000, not the 128k assumption)', () => {
    expect(startingModel(defaultSettings(), undefined, listed)).toEqual(listed);
  });

  it('lets the window setting (or the model’s override) win, as it does for a request', () => {
    expect(startingModel(withWindow(16_000), listed, undefined)).toEqual({ id: 'qwen2.5-coder', contextWindow: 16_000, windowSource: 'setting' });
    expect(startingModel(withWindow(0, { 'qwen2.5-coder': 4096 }), undefined, listed)).toEqual({ id: 'qwen2.5-coder', contextWindow: 4096, windowSource: 'setting' });
  });

  it('does not keep a window a setting gave once the setting is gone', () => {
    expect(startingModel(defaultSettings(), { id: 'm', contextWindow: 16_000, windowSource: 'setting' }, undefined)).toEqual({ id: 'm', contextWindow: DEFAULT_CONTEXT_WINDOW, windowSource: 'default' });
  });

  it('ignores a damaged memento: wrong types, absurd windows, unknown sources', () => {
    const fallback = { id: 'gpt-4o', contextWindow: DEFAULT_CONTEXT_WINDOW, windowSource: 'default' };
    for (const garbage of [null, 'x', 42, [], { id: '', contextWindow: 8000, windowSource: 'endpoint' }, { id: 'm', contextWindow: 1e15, windowSource: 'endpoint' }, { id: 'm', contextWindow: -1, windowSource: 'endpoint' }, { id: 'm', contextWindow: 8000, windowSource: 'guess' }, { id: 'm', contextWindow: '8000', windowSource: 'endpoint' }]) {
      expect(startingModel(defaultSettings(), undefined, garbage), JSON.stringify(garbage)).toEqual(fallback);
    }
  });
});
