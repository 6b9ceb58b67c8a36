// One entry's tokens through the same path counts the meter uses (full, or as its pruned placeholder).
import type { MessageEntry } from '../../src/core/session/entries';
import type { CountCache } from '../../src/core/tokens/countCache';
import { countPath } from '../../src/core/tokens/entryTokens';
import type { TokenCounter } from '../../src/core/tokens/tokenCounter';

export function countEntry(entry: MessageEntry, counter: TokenCounter, cache: CountCache, variant: 'full' | 'pruned' = 'full'): number {
  const tokens = countPath([entry], counter, cache)[variant].get(entry.id);
  if (tokens === undefined) throw new Error(`no ${variant} count for ${entry.id}`);
  return tokens;
}
