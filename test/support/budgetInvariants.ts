// Test helper: the invariants every compaction cut plan must satisfy on its path.
import { expect } from 'vitest';
import { contextSpan } from '../../src/core/budget/pathState';
import { maxKeptTokens, type CutPlan } from '../../src/core/compaction/cutPlan';
import { validCuts } from '../../src/core/compaction/cutPoints';
import type { SessionEntry } from '../../src/core/session/entries';

/** Checks every invariant a cut plan must satisfy on its path. */
export function expectValidCut(path: readonly SessionEntry[], plan: CutPlan, options: { keepRecentTokens: number; usable: number }): void {
  const { messages } = contextSpan(path);
  const ids = messages.map((entry) => entry.id);
  const cut = ids.indexOf(plan.firstKeptEntryId ?? '');
  expect(cut).toBeGreaterThan(0);
  expect([...plan.summarizeEntryIds, ...plan.turnPrefixEntryIds]).toEqual(ids.slice(0, cut));
  expect(validCuts(messages)[cut]).toBe(true);
  const kept = new Set(ids.slice(cut));
  const owner = new Map<string, string>();
  for (const entry of messages) if (entry.type === 'assistant') for (const call of entry.toolCalls) owner.set(call.id, entry.id);
  for (const entry of messages) {
    if (entry.type !== 'toolResult') continue;
    const assistant = owner.get(entry.toolCallId);
    if (assistant) expect(kept.has(entry.id)).toBe(kept.has(assistant));
  }
  if (plan.turnPrefixEntryIds.length > 0) {
    expect(messages[ids.indexOf(plan.turnPrefixEntryIds[0]!)]?.type).toBe('user');
    expect(messages[cut]?.type).toBe('assistant');
  }
  const laterCuts = validCuts(messages).slice(cut + 1).some(Boolean);
  if (!plan.fits) expect(laterCuts).toBe(false);
  expect(plan.tokensKept <= maxKeptTokens(options) || !laterCuts).toBe(true);
}
