// Tokens, summaries and cost per turn and for the branch, added up from the usage reports and compactions on a path.
import type { SessionEntry, SubagentLink, Usage } from '../session/entries';
import { isReportedCost } from '../session/entries';
import type { TurnUsageView, UsageFigures, UsageView } from '../../shared/panelViewModels';
import { shortened } from './compactionDescription';

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
function addEntry(targets: readonly UsageFigures[], entry: SessionEntry): void {
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

/**
 * Adds up the path's usage reports and compactions, per turn and in total. Calls and compactions before the
 * first request count in the total only; a compaction between two turns counts in the turn before it.
 */
export function pathUsage(path: readonly SessionEntry[]): PathUsage {
  const session = emptyUsageFigures();
  const turns: TurnUsageView[] = [];
  for (const entry of path) {
    if (entry.type === 'user' && !entry.synthetic) {
      turns.push({ ...emptyUsageFigures(), turn: turns.length + 1, request: shortened(entry.text), when: entry.timestamp });
      continue;
    }
    const turn = turns.at(-1);
    addEntry(turn ? [session, turn] : [session], entry);
  }
  return { session, turns };
}

/** The panel's usage section: the branch's totals and its last RECENT_TURNS turns. */
export function toUsageView(path: readonly SessionEntry[]): UsageView {
  const { session, turns } = pathUsage(path);
  return { session, recentTurns: turns.slice(-RECENT_TURNS), turnCount: turns.length };
}
