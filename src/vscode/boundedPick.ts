// Quick picks of lists that grow with use (sessions, checkpoints, branches, turns, models): at most PICK_LIMIT items, the title counting the rest.
import * as vscode from 'vscode';
import { boundList } from '../core/session/boundedList';

/** Most items one quick pick is handed; typing filters within them. */
export const PICK_LIMIT = 1_000;

export interface BoundedPick<T> {
  items: T[];
  /** The pick's title, with how many items were left out when some were. */
  title: string;
}

/**
 * `items` cut to `limit` from the end people look at first (`first` for newest-first lists), and a title that says
 * how many more there are, so a list of 100,000 entries from a long or hostile session stays one small message.
 */
export function boundedPick<T>(items: readonly T[], title: string, keep: 'first' | 'last' = 'first', limit = PICK_LIMIT): BoundedPick<T> {
  const kept = boundList(items, { maxItems: limit, keep });
  if (kept.omitted === 0) return { items: kept, title };
  const more = keep === 'first' ? vscode.l10n.t('{0} — the first {1}; … and {2} more not listed', title, kept.length, kept.omitted) : vscode.l10n.t('{0} — the last {1}; … and {2} earlier not listed', title, kept.length, kept.omitted);
  return { items: kept, title: more };
}
