// Applies a prune plan: one PruneEntry hiding old tool outputs (used by the loop, commands and the UI).
import type { PruneEntry } from '../session/entries';
import type { AgentLog } from './agentLog';
import type { CountingDeps } from './contextMeasure';
import { measureContext } from './contextMeasure';

export interface PruneOptions {
  reason: PruneEntry['reason'];
  /** Override pruning.minimumTokens (a manual prune may take small gains). */
  minimumTokens?: number;
}

/** Appends a PruneEntry for what planPrune selects now; null when there is nothing worth pruning. */
export async function pruneNow(log: AgentLog, deps: CountingDeps, options: PruneOptions): Promise<PruneEntry | null> {
  const pruning = { ...deps.settings.pruning, enabled: true };
  if (options.minimumTokens !== undefined) pruning.minimumTokens = options.minimumTokens;
  const plan = measureContext(log.path(), { ...deps, settings: { ...deps.settings, pruning } }).prune;
  if (plan.entryIds.length === 0) return null;
  const entry = await log.append({ type: 'prune', toolResultIds: plan.entryIds, tokensFreed: plan.tokensFreed, reason: options.reason });
  return entry as PruneEntry;
}
