// Plans soft compaction: which old tool outputs to hide from the model (OpenCode's protect/minimum rules).
import type { Settings } from '../settings/settings';
import type { SessionEntry } from '../session/entries';
import { pinnedEntryIds, prunedToolResultIds } from '../context/contextMarkers';
import { contextSpan } from './pathState';

/** Tokens of one entry as sent now, in the endpoint's units: in full, or as its pruned placeholder. */
export interface EntryCosts {
  full: { get(entryId: string): number | undefined };
  pruned: { get(entryId: string): number | undefined };
}

export interface PrunePlan {
  /** Tool-result entry ids to mark, oldest first; empty when pruning is not worth it. */
  entryIds: string[];
  /** Prompt tokens saved: full output minus the placeholder that replaces it. */
  tokensFreed: number;
}

const NOTHING: PrunePlan = { entryIds: [], tokensFreed: 0 };

/**
 * Walks back from the newest message. Tool outputs in the last `protectTurns` user turns are never
 * touched; older ones are protected until `protectTokens` of tool output has been passed, and
 * protected tools and pinned results are always skipped. The walk stops at the context start (the
 * latest compaction's kept part) or at an already-pruned result (everything older was handled).
 * Nothing is pruned unless at least `minimumTokens` would be freed: small gains are not worth
 * rewriting the prompt prefix (and losing the provider's prompt cache).
 */
export function planPrune(
  path: readonly SessionEntry[],
  counts: EntryCosts,
  /** protectTokens and minimumTokens as the thresholds scaled them for the window. */
  settings: Settings['pruning'],
): PrunePlan {
  if (!settings.enabled) return NOTHING;
  const { messages } = contextSpan(path);
  const alreadyPruned = prunedToolResultIds(path);
  const pinned = pinnedEntryIds(path);
  const protectedTools = new Set(settings.protectedTools);
  let turns = 0;
  let seenOutput = 0;
  let tokensFreed = 0;
  const entryIds: string[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const entry = messages[index];
    if (!entry) continue;
    if (entry.type === 'user' && !entry.synthetic) turns++;
    if (turns < settings.protectTurns) continue;
    if (entry.type !== 'toolResult') continue;
    if (alreadyPruned.has(entry.id)) break;
    if (protectedTools.has(entry.toolName) || pinned.has(entry.id)) continue;
    const full = counts.full.get(entry.id) ?? 0;
    seenOutput += full;
    if (seenOutput <= settings.protectTokens) continue;
    const placeholder = counts.pruned.get(entry.id) ?? 0;
    const saved = full - placeholder;
    if (saved <= 0) continue;
    entryIds.push(entry.id);
    tokensFreed += saved;
  }
  if (entryIds.length === 0 || tokensFreed < settings.minimumTokens) return NOTHING;
  return { entryIds: entryIds.reverse(), tokensFreed };
}
