// Applies a prune plan: one PruneEntry hiding old tool outputs (used by the loop, commands and the UI).
import type { CountingDeps } from '../budget/meter';
import { measureContext } from '../budget/meter';
import type { PruneEntry } from '../session/entries';
import type { AgentLog } from './agentLog';

export interface PruneOptions {
  reason: PruneEntry['reason'];
  /** A manual prune takes small gains too (the minimum exists to keep the provider's prompt cache). */
  anySize?: boolean;
}

/** What a prune with these options would take out now. */
function planNow(log: AgentLog, deps: CountingDeps, options: PruneOptions): ReturnType<typeof measureContext>['prune'] {
  // An explicit minimum of 1 token replaces the window's scaled minimum (0 would mean "scale").
  const pruning = { ...deps.settings.pruning, enabled: true, ...(options.anySize ? { minimumTokens: 1 } : {}) };
  const settings = { ...deps.settings, pruning };
  return measureContext(log.path(), { ...deps, settings }).prune;
}

/** Tokens a manual prune (any size) would free now; 0 when every tool output is protected or pruned already. */
export function prunableNow(log: AgentLog, deps: CountingDeps): number {
  const plan = planNow(log, deps, { reason: 'manual', anySize: true });
  return plan.entryIds.length === 0 ? 0 : plan.tokensFreed;
}

/** Appends a PruneEntry for what planPrune selects now; null when there is nothing worth pruning. */
export async function pruneNow(log: AgentLog, deps: CountingDeps, options: PruneOptions): Promise<PruneEntry | null> {
  const plan = planNow(log, deps, options);
  if (plan.entryIds.length === 0) return null;
  const entry = await log.append({ type: 'prune', toolResultIds: plan.entryIds, tokensFreed: plan.tokensFreed, reason: options.reason });
  return entry as PruneEntry;
}
