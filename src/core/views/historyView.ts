// The panel's history: compactions and file checkpoints on the current branch, pinned messages, and recent messages one can pin.
import { checkpoints, unrecordedSentence } from '../checkpoints/fileCheckpoints';
import { pinnedEntryIds } from '../context/contextMarkers';
import { userContent } from '../context/userContent';
import { compactionCoverage, shortened } from './compactionDescription';
import type { EntryCounts } from '../tokens/entryTokens';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { entryTitle } from '../session/entryTitle';

export { entryTitle } from '../session/entryTitle';
import type { CheckpointView, EntryView, HistoryView, PinView, SubtaskView } from '../../shared/panelViewModels';

/** How many recent messages the panel offers to pin. */
const PINNABLE_LIMIT = 12;
/** How many checkpoints the panel lists (the palette command lists them all). */
const CHECKPOINT_LIMIT = 15;

export function entryText(entry: MessageEntry): string {
  switch (entry.type) {
    case 'user':
      return userContent(entry);
    case 'assistant':
      return [entry.text, ...entry.toolCalls.map((call) => `→ ${call.name} ${call.arguments}`)].filter(Boolean).join('\n');
    case 'toolResult':
      return entry.content;
  }
}

export function toEntryView(entry: MessageEntry, tokens: number, pinned: boolean): EntryView {
  return { id: entry.id, kind: entry.type, title: entryTitle(entry), tokens, text: entryText(entry), pinned };
}

/** The panel's checkpoints by the branch's last entry: a branch ending at the same entry has the same checkpoints, so a refresh costs nothing. */
const checkpointMemo = new WeakMap<SessionEntry, { length: number; views: CheckpointView[] }>();

/** The newest CHECKPOINT_LIMIT checkpoints; the walk stops there, so it is linear in the turns after them. */
function recentCheckpoints(path: readonly SessionEntry[]): CheckpointView[] {
  const last = path.at(-1);
  const known = last ? checkpointMemo.get(last) : undefined;
  if (known && known.length === path.length) return known.views;
  const views = checkpoints(path, CHECKPOINT_LIMIT).map((point) => {
    const unrecorded = unrecordedSentence(point);
    return { entryId: point.entryId, kind: point.kind, title: point.title, when: point.when, files: point.files, fileCount: point.fileCount, ...(unrecorded ? { unrecorded } : {}) };
  });
  if (last) checkpointMemo.set(last, { length: path.length, views });
  return views;
}

/** How many sub-tasks the panel lists. */
const SUBTASK_LIMIT = 10;

function taskOf(argumentsText: string | undefined): string {
  try {
    const task = (JSON.parse(argumentsText ?? '{}') as { task?: unknown }).task;
    return typeof task === 'string' ? shortened(task) : '(no task)';
  } catch {
    return '(no task)';
  }
}

/** The newest SUBTASK_LIMIT delegated sub-tasks on the path, with the task their call gave. */
function recentSubtasks(path: readonly SessionEntry[]): SubtaskView[] {
  const found: SubtaskView[] = [];
  for (let index = path.length - 1; index >= 0 && found.length < SUBTASK_LIMIT; index--) {
    const entry = path[index] as SessionEntry;
    if (entry.type !== 'toolResult' || !entry.subagent) continue;
    let call: string | undefined;
    for (let back = index - 1; back >= 0 && call === undefined; back--) {
      const candidate = path[back] as SessionEntry;
      if (candidate.type === 'assistant') call = candidate.toolCalls.find((item) => item.id === entry.toolCallId)?.arguments ?? '';
    }
    const link = entry.subagent;
    found.push({ sessionId: link.sessionId, task: taskOf(call), calls: link.calls, tokens: link.promptTokens + link.completionTokens });
  }
  return found;
}

export function toHistoryView(path: readonly SessionEntry[], counts?: EntryCounts): HistoryView {
  const pinned = pinnedEntryIds(path);
  const tokens = (id: string): number => counts?.full.get(id) ?? 0;
  const messages = path.filter(isMessageEntry);
  const pinView = (entry: MessageEntry): PinView => ({ entryId: entry.id, title: entryTitle(entry), tokens: tokens(entry.id) });
  return {
    compactions: path
      .filter((entry): entry is CompactionEntry => entry.type === 'compaction')
      .map((entry) => ({
        id: entry.id,
        when: entry.timestamp,
        tokensBefore: entry.tokensBefore,
        tokensAfter: entry.tokensAfter,
        ...compactionCoverage(path, entry),
        edited: entry.edited,
        auto: entry.auto,
      })),
    checkpoints: recentCheckpoints(path),
    subtasks: recentSubtasks(path),
    pins: messages.filter((entry) => pinned.has(entry.id)).map(pinView),
    pinnable: messages
      .filter((entry) => !pinned.has(entry.id) && entry.type !== 'toolResult')
      .slice(-PINNABLE_LIMIT)
      .reverse()
      .map(pinView),
  };
}
