// What a compaction would leave, measured by the meter on the path with the compaction in place (never written): the
// figures a proposal shows, the pins its appendix names, and the least any compaction could leave.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { thresholdsFor } from '../budget/thresholds';
import { buildContext, contextParts } from '../context/contextBuilder';
import { pinnedEntryIds } from '../context/contextMarkers';
import type { CompactionEntry, FileLedger, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { newEntryId } from '../session/newEntry';
import type { Cut } from './cutPlan';
import { pinnedBudget, pinnedReference, withPinnedSection } from './summaryAppendix';

export interface EntrySize {
  id: string;
  type: MessageEntry['type'];
  tokens: number;
}

/** The compaction a proposal would append: what the context after is measured with. */
export interface CompactionDraft extends Cut {
  summary: string;
  turnPrefixSummary?: string;
  files: FileLedger;
}

export function draftEntry(path: readonly SessionEntry[], draft: CompactionDraft): CompactionEntry {
  return {
    type: 'compaction',
    id: `draft-${newEntryId()}`,
    parentId: path.at(-1)?.id ?? null,
    timestamp: new Date().toISOString(),
    summary: draft.summary,
    firstKeptEntryId: draft.firstKeptEntryId,
    carriedRequestId: draft.carriedRequestId,
    ...(draft.turnPrefixSummary !== undefined ? { turnPrefixSummary: draft.turnPrefixSummary } : {}),
    tokensBefore: 0,
    tokensAfter: 0,
    files: draft.files,
    edited: false,
    auto: false,
  };
}

/**
 * The meter's measure of the context as it would be sent after appending `draft` to `path`: the same
 * builder and counter that measure every call, on the path with the compaction in place (never written).
 */
export function measureAfter(path: readonly SessionEntry[], draft: CompactionDraft, deps: CountingDeps): MeasuredContext {
  return measureContext([...path, draftEntry(path, draft)], deps);
}

/** The messages a measured context sends, with their sizes (what the review lists as kept). */
export function sentSizes(measured: MeasuredContext): EntrySize[] {
  const byId = new Map(measured.path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  const seen = new Set<string>();
  return buildContext(measured.path).items.flatMap((item) => {
    const entry = item.entryId === undefined ? undefined : byId.get(item.entryId);
    if (!entry || seen.has(entry.id)) return [];
    seen.add(entry.id);
    const tokens = (item.pruned ? measured.costs.pruned : measured.costs.full).get(entry.id) ?? 0;
    return [{ id: entry.id, type: entry.type, tokens }];
  });
}

export function fixedOf(measured: MeasuredContext): number {
  const { breakdown } = measured.budget;
  return breakdown.system + breakdown.instructions + breakdown.tools;
}

export function sizes(ids: readonly string[], byId: ReadonlyMap<string, MessageEntry>, measured: MeasuredContext): EntrySize[] {
  return ids.flatMap((id) => {
    const entry = byId.get(id);
    return entry ? [{ id, type: entry.type, tokens: measured.costs.full.get(id) ?? 0 }] : [];
  });
}

/** Pinned messages among `messages` (each pin once, not the exchange it brings): what the appendix names. */
export function pinnedAmong(path: readonly SessionEntry[], messages: readonly MessageEntry[]): MessageEntry[] {
  const pinned = pinnedEntryIds(path);
  return messages.filter((entry) => pinned.has(entry.id));
}

/** The pins the context re-sends after a summary at `cut`, as the builder will send them: what its appendix names. */
export function pinsAfter(path: readonly SessionEntry[], cut: Cut): MessageEntry[] {
  return pinnedAmong(path, contextParts([...path, draftEntry(path, { ...cut, summary: '', files: { read: [], modified: [] } })]).resent);
}

/**
 * The summary as it is applied: its appendix names the pins re-sent after it now (a pin made or removed while the
 * summary waited for review changes them), else the summary as it was approved.
 */
export function withPinsNow(summary: string, named: readonly string[], pins: readonly MessageEntry[], deps: CountingDeps): string {
  const now = pins.map((entry) => entry.id);
  if (now.length === named.length && now.every((id, at) => id === named[at])) return summary;
  return withPinnedSection(summary, pins.map(pinnedReference), pinnedBudget(thresholdsFor(deps.contextWindow, deps.settings).summaryTokens));
}

/**
 * The smallest context any compaction could leave, measured: the latest possible cut with an empty summary
 * (pins and the carried request included), plus the room a summary needs. Undefined when nothing can be cut.
 */
export function minimumAfter(path: readonly SessionEntry[], lastCut: Cut | null, deps: CountingDeps): number | undefined {
  if (lastCut === null) return undefined;
  const measured = measureAfter(path, { ...lastCut, summary: '', files: { read: [], modified: [] } }, deps);
  return measured.budget.used + measured.thresholds.summaryTokens;
}
