// Test helper: the invariants every compaction cut plan must satisfy on its path.
import { expect } from 'vitest';
import { contextSpan } from '../../src/core/budget/pathState';
import { maxKeptTokens, validCuts, type CutOptions, type CutPlan } from '../../src/core/compaction/cutPlan';
import type { SessionEntry } from '../../src/core/session/entries';

/** Cut options with no fixed prompt and no summary: only the kept history competes for the budget. */
export function cutOptions(keepRecentTokens: number, usable: number): CutOptions {
  return { keepRecentTokens, usable, fixedTokens: 0, currentSummaryTokens: 0, summaryRoom: 0 };
}

/** Checks every invariant a cut plan must satisfy on its path. */
export function expectValidCut(path: readonly SessionEntry[], plan: CutPlan, options: CutOptions): void {
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
