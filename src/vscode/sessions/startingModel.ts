// The model a session is measured against before its own first request binds one (no vscode import: unit-tested).
import { boundedWindow, DEFAULT_CONTEXT_WINDOW, type ContextWindowSource } from '../../core/llm/contextWindow';
import { windowSettingFor, type Settings } from '../../core/settings/settings';
import type { ModelChoice } from '../endpoint/modelBinding';

/** Fallback when no chat model has been used yet: the configured endpoint model, else an o200k estimate. */
export const ESTIMATE_MODEL = 'gpt-4o';

const WINDOW_SOURCES: ReadonlySet<string> = new Set<ContextWindowSource>(['setting', 'learned', 'model', 'endpoint', 'server', 'untilLoaded', 'default']);

/** A remembered model choice, or undefined when the stored value is not one (an older or damaged memento). */
function asModelChoice(value: unknown): ModelChoice | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const choice = value as Partial<ModelChoice>;
  const contextWindow = boundedWindow(choice.contextWindow);
  if (typeof choice.id !== 'string' || !choice.id || contextWindow === undefined) return undefined;
  if (typeof choice.windowSource !== 'string' || !WINDOW_SOURCES.has(choice.windowSource)) return undefined;
  return { id: choice.id, contextWindow, windowSource: choice.windowSource, ...(typeof choice.windowDetail === 'string' ? { windowDetail: choice.windowDetail } : {}) };
}

/**
 * The model a session shows before its own request binds one: the given choice (the source of a hand-off, the
 * session /new followed) or the latest request's, with the window setting winning as it does for a request;
 * without either, the configured endpoint model against the 128k assumption.
 */
export function startingModel(settings: Settings, given: ModelChoice | undefined, remembered: unknown): ModelChoice {
  const known = given ?? asModelChoice(remembered);
  const id = known?.id ?? (settings.endpoint.model || ESTIMATE_MODEL);
  const setting = windowSettingFor(settings, id);
  if (setting > 0) return { id, contextWindow: setting, windowSource: 'setting' };
  if (known && known.windowSource !== 'setting') return known;
  return { id, contextWindow: DEFAULT_CONTEXT_WINDOW, windowSource: 'default' };
}
