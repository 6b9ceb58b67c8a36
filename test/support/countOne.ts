// One entry's tokens through the same path counts the meter uses (full, or as its pruned placeholder).
import type { MessageEntry } from '../../src/core/session/entries';
import type { CountCache } from '../../src/core/tokens/countCache';
import { countPath } from '../../src/core/tokens/entryTokens';
import type { TokenCounter } from '../../src/core/tokens/tokenCounter';

export function countEntry(entry: MessageEntry, counter: TokenCounter, cache: CountCache, variant: 'full' | 'pruned' = 'full'): number {
  const counts = countPath([entry], counter, cache);
  // Only tool results have a pruned form; every other entry is sent the same either way.
  const tokens = counts[variant].get(entry.id) ?? (variant === 'pruned' && entry.type !== 'toolResult' ? counts.full.get(entry.id) : undefined);
  if (tokens === undefined) throw new Error(`no ${variant} count for ${entry.id}`);
  return tokens;
}
