// Drops chosen messages from the context or undoes a drop: measured on the path with and without it, then one DropEntry.
import type { CountingDeps } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { droppedEntryIds } from '../context/contextMarkers';
import { pathMarkers } from '../context/pathMarkers';
import { describeDropped, wholeExchanges, type DropTarget } from '../context/contextDrops';
import { contextTurns } from '../context/contextTurns';
import type { DropEntry, SessionEntry } from '../session/entries';
import { newEntryId } from '../session/newEntry';
import type { SessionLog } from '../session/sessionLog';

/** What a drop (or its undo) would change, measured before the person confirms. */
export interface DropPreview {
  entryIds: string[];
  dropped: boolean;
  label: string;
  /** Tokens the change takes out of the context (an undo: brings back), in the endpoint's units. */
  tokens: number;
  /** The meter's `used` now and once the change is in place, and the usable budget. */
  usedBefore: number;
  usedAfter: number;
  usable: number;
  /** The leaf it was measured on; applying refuses when the session moved on since. */
  leafId: string | null;
}

/** The part of a session log a drop needs. */
export type DropLog = Pick<SessionLog, 'append' | 'path' | 'leafId'>;

/** The message entries a /drop target names, as whole tool exchanges; a message when there is nothing to take. */
export function targetEntryIds(path: readonly SessionEntry[], target: DropTarget): { entryIds: string[]; label: string } | { error: string } {
  const turns = contextTurns(path);
  let ids: string[] = [];
  let label = '';
  if (target.kind === 'turns') {
    ids = turns.slice(target.from - 1, target.to).flatMap((turn) => turn.entryIds);
    label = target.from === target.to ? `turn ${target.from}` : `turns ${target.from}–${target.to}`;
  } else if (target.kind === 'step') {
    const step = turns.flatMap((turn) => turn.steps).find((candidate) => candidate.number === target.number);
    ids = step?.entryIds ?? [];
    label = `tool step ${target.number}`;
  } else return { error: 'Not a drop target.' };
  const dropped = droppedEntryIds(path);
  const entryIds = wholeExchanges(path, ids).filter((id) => !dropped.has(id));
  if (entryIds.length === 0) return { error: `${label[0]?.toUpperCase() ?? ''}${label.slice(1)} is already dropped from the context; "/drop undo" brings back the latest drop.` };
  return { entryIds, label: `${label}: ${describeDropped(path, entryIds)}` };
}

function draft(path: readonly SessionEntry[], fields: Pick<DropEntry, 'entryIds' | 'dropped' | 'label'>): DropEntry {
  return { type: 'drop', id: `draft-${newEntryId()}`, parentId: path.at(-1)?.id ?? null, timestamp: new Date().toISOString(), ...fields, tokens: 0 };
}

/**
 * Measures the change with the meter (the same builder and counter as every call) on the path as it is and with
 * the drop in place. The tokens are the difference of the two counts of what buildContext sends, in endpoint
 * units, so a usage report that anchors only the first does not skew it.
 */
export function previewDrop(path: readonly SessionEntry[], change: Pick<DropEntry, 'entryIds' | 'dropped' | 'label'>, deps: CountingDeps, leafId: string | null): DropPreview {
  const before = measureContext([...path], deps);
  const after = measureContext([...path, draft(path, change)], deps);
  const ratio = deps.calibration?.contentRatio ?? 1;
  const difference = Math.round((before.countedPrompt - after.countedPrompt) * ratio);
  return {
    ...change,
    tokens: Math.abs(difference),
    usedBefore: before.budget.used,
    usedAfter: after.budget.used,
    usable: after.budget.usable,
    leafId,
  };
}

/** The newest drop on the path whose messages are still dropped (what "undo" brings back), if any. */
export function latestDrop(path: readonly SessionEntry[]): DropEntry | undefined {
  return pathMarkers(path).latestDrop();
}

/** The undo of the latest drop, measured; undefined when nothing is dropped on this branch. */
export function previewUndo(path: readonly SessionEntry[], deps: CountingDeps, leafId: string | null): DropPreview | undefined {
  const drop = latestDrop(path);
  if (!drop) return undefined;
  const dropped = droppedEntryIds(path);
  return previewDrop(path, { entryIds: drop.entryIds.filter((id) => dropped.has(id)), dropped: false, label: drop.label }, deps, leafId);
}

/** Appends the DropEntry of a preview; refuses when the session moved on since it was measured. */
export async function applyDrop(log: DropLog, preview: DropPreview): Promise<DropEntry> {
  if (log.leafId !== preview.leafId) throw new Error('The session changed since this drop was measured; nothing was dropped. Run /drop again.');
  const entry = await log.append({ type: 'drop', entryIds: preview.entryIds, dropped: preview.dropped, label: preview.label, tokens: preview.tokens });
  return entry as DropEntry;
}
