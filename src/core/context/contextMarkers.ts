// What prune, drop, pin and compaction entries on a path mean for the context: pruned, dropped and pinned ids, and their framing texts.
import type { CompactionEntry, SessionEntry, ToolResultEntry } from '../session/entries';

/** Frames the compaction summary (sent as a user message right after the system prompt). */
export const SUMMARY_PREFIX =
  'The earlier part of this conversation was compacted to save context. What follows is a summary of that earlier work, ' +
  'not a new request: use it to continue the task without redoing what is already done.';

export const TURN_PREFIX_HEADING = '## Earlier steps of the current turn';

/** Tool results hidden from the model by prune entries on this path. */
export function prunedToolResultIds(path: readonly SessionEntry[]): Set<string> {
  const ids = new Set<string>();
  for (const entry of path) {
    if (entry.type === 'prune') for (const id of entry.toolResultIds) ids.add(id);
  }
  return ids;
}

/** Message entries dropped from the context by drop entries on this path; the last drop or undo of an entry wins. */
export function droppedEntryIds(path: readonly SessionEntry[]): Set<string> {
  const ids = new Set<string>();
  for (const entry of path) {
    if (entry.type !== 'drop') continue;
    for (const id of entry.entryIds) {
      if (entry.dropped) ids.add(id);
      else ids.delete(id);
    }
  }
  return ids;
}

/** Entries pinned on this path; the last pin/unpin of a target wins. */
export function pinnedEntryIds(path: readonly SessionEntry[]): Set<string> {
  const ids = new Set<string>();
  for (const entry of path) {
    if (entry.type !== 'pin') continue;
    if (entry.pinned) ids.add(entry.targetId);
    else ids.delete(entry.targetId);
  }
  return ids;
}

/** Full size of a tool output in UTF-16 chars (the blob holds it when the inline content was capped). */
export function toolOutputChars(entry: ToolResultEntry): number {
  return entry.blob?.chars ?? entry.content.length;
}

/** Stands in for a pruned tool output: what it was and how to get it back. */
export function prunePlaceholder(entry: ToolResultEntry): string {
  return (
    `[Output of ${entry.toolName} pruned from the context to save space (${toolOutputChars(entry)} chars${entry.isError ? ', an error' : ''}). ` +
    `Call read_stored_output with entryId "${entry.id}" to read it again.]`
  );
}

/** Said after a summary when a drop undo brought back messages it names as dropped: they count again. */
export const BROUGHT_BACK_NOTE =
  'Since this summary was written, the user brought back messages it names as dropped on purpose: they follow verbatim and are part of the conversation again.';

/** The user-message text that carries a compaction summary into the context (`broughtBack`: see BROUGHT_BACK_NOTE). */
export function summaryMessageText(compaction: CompactionEntry, broughtBack = false): string {
  const parts = [SUMMARY_PREFIX, `<summary>\n${compaction.summary}\n</summary>`];
  if (compaction.turnPrefixSummary) parts.push(`${TURN_PREFIX_HEADING}\n\n${compaction.turnPrefixSummary}`);
  if (broughtBack) parts.push(BROUGHT_BACK_NOTE);
  return parts.join('\n\n');
}
