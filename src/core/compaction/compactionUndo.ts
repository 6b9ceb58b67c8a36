// Restore Pre-Compaction Branch as an undo: the history before a compaction plus copies of every turn made after it.
import { pathMarkers } from '../context/pathMarkers';
import type { SessionEntry } from '../session/entries';
import type { NewEntry } from '../session/newEntry';
import type { SessionLog } from '../session/sessionLog';

/** The label a restored branch ends with; until a compaction follows it, nothing is compacted without asking. */
export const RESTORE_LABEL = 'restored-before-compaction';

export type UndoLog = Pick<SessionLog, 'append' | 'restoreBeforeCompaction' | 'path' | 'tree' | 'moveLeaf'>;

export interface UndoResult {
  /** Entries made after the compaction, appended again (as copies pointing to their originals). */
  copied: number;
  /** Later compactions skipped because they built on the one undone: their content is back verbatim. */
  skippedCompactions: number;
}

/**
 * Forks a new branch at the compaction's parent and appends, in order, a copy of everything the branch held
 * after the compaction (messages, pins, prunes, labels, model changes, file restores), ids remapped, each
 * with `copyOf` and its original time. Later compactions on the branch are dropped: undoing an earlier one
 * undoes what was built on it. The compacted branch stays in the tree. A compaction not on the current
 * branch is restored without copies.
 *
 * All or nothing: the restore label comes first, so even a branch cut short by a crash never compacts
 * without asking, and a failed copy moves the leaf back to where it was (the half branch stays unreachable).
 */
export async function undoCompaction(log: UndoLog, compactionId: string): Promise<UndoResult> {
  const compaction = log.tree.get(compactionId);
  if (compaction?.type !== 'compaction') throw new Error(`${compactionId} is not a compaction entry`);
  const path = log.path();
  const leafBefore = path.at(-1)?.id;
  const at = path.findIndex((entry) => entry.id === compactionId);
  const later = at < 0 ? [] : path.slice(at + 1);
  await log.restoreBeforeCompaction(compactionId);
  const copies = new Map<string, string>();
  const mapped = (id: string): string => copies.get(id) ?? id;
  let copied = 0;
  let skippedCompactions = 0;
  try {
    await log.append({ type: 'label', targetId: compactionId, label: RESTORE_LABEL });
    for (const entry of later) {
      if (entry.type === 'compaction') {
        skippedCompactions++;
        continue;
      }
      const fields = copyFields(entry, mapped);
      if (!fields) continue;
      const copy = await log.append(fields);
      copies.set(entry.id, copy.id);
      copied++;
    }
  } catch (error) {
    if (leafBefore !== undefined) await log.moveLeaf(leafBefore, 'switch').catch(() => undefined);
    throw error;
  }
  return { copied, skippedCompactions };
}

/**
 * Goes back to the point of the compaction without bringing later turns along: the leaf moves to its parent
 * (full history, no summary) and the restore label asks before compacting again. Used when the files go back
 * to that point too, so the conversation matches them. Later turns stay on the compacted branch.
 */
export async function returnToCompactionPoint(log: UndoLog, compactionId: string): Promise<void> {
  await log.restoreBeforeCompaction(compactionId);
  await log.append({ type: 'label', targetId: compactionId, label: RESTORE_LABEL });
}

/** The entry's own fields for a copy, references remapped to earlier copies; undefined for what is not copied. */
function copyFields(entry: SessionEntry, mapped: (id: string) => string): NewEntry | undefined {
  const copyOf = entry.copyOf ?? entry.id;
  const { id: _id, parentId: _parentId, ...fields } = entry;
  switch (fields.type) {
    case 'user':
    case 'assistant':
    case 'toolResult':
    case 'modelChange':
    case 'settingsChange':
      return { ...fields, copyOf };
    case 'fileRestore':
      return { ...fields, targetId: mapped(fields.targetId), copyOf };
    case 'prune':
      return { ...fields, toolResultIds: fields.toolResultIds.map(mapped), copyOf };
    case 'label':
      // An earlier restore's marker (or its end) is not history: the new branch has its own.
      if (fields.label === RESTORE_LABEL || fields.label === RESUME_LABEL) return undefined;
      return { ...fields, targetId: mapped(fields.targetId), copyOf };
    case 'pin':
      return { ...fields, targetId: mapped(fields.targetId), copyOf };
    case 'drop':
      return { ...fields, entryIds: fields.entryIds.map(mapped), copyOf };
    default:
      return undefined;
  }
}

/** The label that ends the pause a restore set: automatic compaction may run again on this branch. */
export const RESUME_LABEL = 'automatic-compaction-resumed';

/**
 * True when the branch was restored before a compaction and neither a compaction nor the person's
 * "Resume Automatic Compaction" (the RESUME_LABEL) came after: the pause a restore sets has a visible end.
 */
export function awaitingCompactionConsent(path: readonly SessionEntry[]): boolean {
  // The labels after the latest compaction, newest first, from the markers kept per session (no walk of the path).
  const markers = pathMarkers(path);
  for (const label of markers.labelsAfter(markers.compaction?.index ?? -1)) {
    if (label.label === RESUME_LABEL) return false;
    if (label.label === RESTORE_LABEL) return true;
  }
  return false;
}
