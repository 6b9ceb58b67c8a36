// Tokens, summaries and cost per turn and for the branch, added up from the usage reports and compactions on a path.
import type { SessionEntry, SubagentLink, Usage } from '../session/entries';
import { isReportedCost } from '../session/entries';
import type { TurnUsageView, UsageFigures, UsageView } from '../../shared/panelViewModels';
import { shortened } from './compactionDescription';
import { foldPath, pushUndoable, type FoldState, type PathFold, type Undo } from '../session/pathFold';
import { OwnedMemo } from '../session/ownedMemo';

/** How many of the latest turns the panel lists. */
export const RECENT_TURNS = 5;

export function emptyUsageFigures(): UsageFigures {
  return { calls: 0, unreportedCalls: 0, promptTokens: 0, cachedTokens: 0, outputTokens: 0, pricedCalls: 0, cost: 0, summaries: 0, summarizedTokens: 0 };
}

const count = (value: number | undefined): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

function addUsage(figures: UsageFigures, usage: Usage | undefined): void {
  if (!usage) {
    figures.unreportedCalls++;
    return;
  }
  const prompt = count(usage.promptTokens);
  figures.calls++;
  figures.promptTokens += prompt;
  figures.cachedTokens += Math.min(count(usage.cachedTokens), prompt);
  figures.outputTokens += count(usage.completionTokens);
  // Logs are validated on load, but a path may come from elsewhere (imports, tests): an absurd cost is ignored.
  if (isReportedCost(usage.cost)) {
    figures.pricedCalls++;
    figures.cost += usage.cost;
  }
}

/** A delegated sub-task's model calls count with the parent's (the child session lists them one by one). */
function addSubagent(figures: UsageFigures, link: SubagentLink): void {
  figures.calls += count(link.calls);
  figures.promptTokens += count(link.promptTokens);
  figures.outputTokens += count(link.completionTokens);
  if (isReportedCost(link.cost)) {
    figures.pricedCalls += count(link.calls);
    figures.cost += link.cost;
  }
}

/** Adds one entry's share to each of `targets`: a model call's usage, or a compaction. */
export function addEntryUsage(targets: readonly UsageFigures[], entry: SessionEntry): void {
  for (const figures of targets) {
    if (entry.type === 'assistant') addUsage(figures, entry.usage);
    else if (entry.type === 'toolResult' && entry.subagent) addSubagent(figures, entry.subagent);
    else if (entry.type === 'compaction') {
      figures.summaries++;
      figures.summarizedTokens += count(entry.tokensBefore);
    }
  }
}

export interface PathUsage {
  session: UsageFigures;
  /** Every turn on the path, oldest first; a turn starts at a request the person wrote (not a synthetic one). */
  turns: TurnUsageView[];
}

/** True for the entries usage figures add up: model calls, sub-tasks and compactions. */
function addsUsage(entry: SessionEntry): boolean {
  return entry.type === 'assistant' || (entry.type === 'toolResult' && entry.subagent !== undefined) || entry.type === 'compaction';
}

/**
 * A path's usage so far, per turn and in total. Figures are replaced, never changed in place, so what a caller got
 * stays true while the fold moves on (and a move back puts the previous objects back).
 */
class UsageState implements FoldState {
  session = emptyUsageFigures();
  readonly turns: TurnUsageView[] = [];

  step(entry: SessionEntry, _index: number, _path: readonly SessionEntry[], undo: Undo): void {
    if (entry.type === 'user' && !entry.synthetic) {
      pushUndoable(this.turns, { ...emptyUsageFigures(), turn: this.turns.length + 1, request: shortened(entry.text), when: entry.timestamp }, undo);
      return;
    }
    if (!addsUsage(entry)) return;
    const session = this.session;
    this.session = { ...session };
    addEntryUsage([this.session], entry);
    undo?.(() => {
      this.session = session;
    });
    const last = this.turns.length - 1;
    const turn = this.turns[last];
    if (!turn) return;
    const next = { ...turn };
    addEntryUsage([next], entry);
    this.turns[last] = next;
    undo?.(() => {
      this.turns[last] = turn;
    });
  }
}

const folds = new OwnedMemo<SessionEntry, { fold: PathFold; state: UsageState }>('usage fold');

/**
 * Adds up the path's usage reports and compactions, per turn and in total. Calls and compactions before the
 * first request count in the total only; a compaction between two turns counts in the turn before it. Kept per
 * session as paths grow (the status item asks on every appended entry): a new entry costs its own figures.
 */
export function pathUsage(path: readonly SessionEntry[]): PathUsage {
  const { state } = foldPath(folds, path, () => new UsageState());
  return { session: state.session, turns: [...state.turns] };
}

/** The panel's usage section: the branch's totals and its last RECENT_TURNS turns (without copying every turn). */
export function toUsageView(path: readonly SessionEntry[]): UsageView {
  const { state } = foldPath(folds, path, () => new UsageState());
  return { session: state.session, recentTurns: state.turns.slice(-RECENT_TURNS), turnCount: state.turns.length };
}

/** The branch's totals the status item shows in its tooltip (kept per session: no walk of the path). */
export function sessionUsage(path: readonly SessionEntry[]): UsageFigures {
  return foldPath(folds, path, () => new UsageState()).state.session;
}
