// What the panel shows of a session's path (history, droppable turns, undo, usage), read incrementally: the panel asks after every appended entry.
import { latestDrop } from '../agent/dropRunner';
import { contextTurns } from '../context/contextDrops';
import type { SessionEntry } from '../session/entries';
import type { EntryCounts } from '../tokens/entryTokens';
import type { ContextTurnView, HistoryView, UsageView } from '../../shared/panelViewModels';
import { toTurnViews } from './dropView';
import { toHistoryView } from './historyView';
import { toUsageView } from './usageView';

/** The panel's sections that follow the path (the budget, the review and notices come from elsewhere). */
export interface PathViews {
  history: HistoryView;
  turns: ContextTurnView[];
  /** Turns the list left out (the oldest). */
  turnsOmitted: number;
  canUndoDrop: boolean;
  usage: UsageView;
}

/**
 * The panel's path sections. Each costs what it shows (the context's turns, the compactions, the pins, the newest
 * checkpoints and turns), not the session's length: the markers, history and usage are kept per session as paths grow.
 */
export function pathViews(path: readonly SessionEntry[], counts?: EntryCounts): PathViews {
  const turns = toTurnViews(contextTurns(path));
  return { history: toHistoryView(path, counts), turns: [...turns], turnsOmitted: turns.omitted, canUndoDrop: latestDrop(path) !== undefined, usage: toUsageView(path) };
}
