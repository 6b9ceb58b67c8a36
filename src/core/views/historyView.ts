// The panel's history: compactions and file checkpoints on the current branch, pinned messages, and recent messages one can pin.
import { checkpoints, unrecordedSentence } from '../checkpoints/fileCheckpoints';
import { pinnedEntryIds } from '../context/contextMarkers';
import { userContent } from '../context/userContent';
import { compactionCoverage, shortened } from './compactionDescription';
import { boundList } from '../session/boundedList';
import type { EntryCounts } from '../tokens/entryTokens';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { entryTitle } from '../session/entryTitle';

export { entryTitle } from '../session/entryTitle';
import type { CheckpointView, EntryView, HistoryView, PinView, SubtaskView } from '../../shared/panelViewModels';

/** How many recent messages the panel offers to pin. */
const PINNABLE_LIMIT = 12;
/** How many checkpoints the panel lists (the palette command reaches the others). */
const CHECKPOINT_LIMIT = 15;
/** How many compactions the panel lists, the newest (Restore Pre-Compaction Branch reaches the others). */
const COMPACTION_LIMIT = 30;
/** How many pinned messages the panel lists, the newest. */
const PIN_LIMIT = 50;

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
const checkpointMemo = new WeakMap<SessionEntry, { length: number; views: CheckpointView[]; omitted: number }>();

/** Every request is a checkpoint, and so is every file restore (as checkpoints() lists them). */
function isCheckpoint(entry: SessionEntry): boolean {
  return (entry.type === 'user' && !entry.synthetic) || entry.type === 'fileRestore';
}

/** The newest CHECKPOINT_LIMIT checkpoints (the walk stops there) and how many older ones there are. */
function recentCheckpoints(path: readonly SessionEntry[]): { views: CheckpointView[]; omitted: number } {
  const last = path.at(-1);
  const known = last ? checkpointMemo.get(last) : undefined;
  if (known && known.length === path.length) return known;
  const views = checkpoints(path, CHECKPOINT_LIMIT).map((point) => {
    const unrecorded = unrecordedSentence(point);
    return { entryId: point.entryId, kind: point.kind, title: point.title, when: point.when, files: point.files, fileCount: point.fileCount, ...(unrecorded ? { unrecorded } : {}) };
  });
  let total = 0;
  for (const entry of path) if (isCheckpoint(entry)) total++;
  const recent = { length: path.length, views, omitted: Math.max(0, total - views.length) };
  if (last) checkpointMemo.set(last, recent);
  return recent;
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

/**
 * The arguments of the call a result answers: the nearest earlier assistant message's calls with that id, paired by
 * position (the second result with an id answers the second call with it: servers repeat ids within a reply).
 */
function callArgumentsOf(path: readonly SessionEntry[], index: number, callId: string): string {
  let earlierResults = 0;
  for (let back = index - 1; back >= 0; back--) {
    const candidate = path[back] as SessionEntry;
    if (candidate.type === 'toolResult' && candidate.toolCallId === callId) earlierResults++;
    if (candidate.type !== 'assistant') continue;
    const calls = candidate.toolCalls.filter((item) => item.id === callId);
    return (calls[earlierResults] ?? calls.at(-1))?.arguments ?? '';
  }
  return '';
}

/** The newest SUBTASK_LIMIT delegated sub-tasks on the path, with the task their call gave, and how many more there are. */
function recentSubtasks(path: readonly SessionEntry[]): { shown: SubtaskView[]; more: number } {
  const found: SubtaskView[] = [];
  let more = 0;
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index] as SessionEntry;
    if (entry.type !== 'toolResult' || !entry.subagent) continue;
    if (found.length >= SUBTASK_LIMIT) {
      more++;
      continue;
    }
    const link = entry.subagent;
    found.push({ sessionId: link.sessionId, task: taskOf(callArgumentsOf(path, index, entry.toolCallId)), calls: link.calls, tokens: link.promptTokens + link.completionTokens });
  }
  return { shown: found, more };
}

export function toHistoryView(path: readonly SessionEntry[], counts?: EntryCounts): HistoryView {
  const pinned = pinnedEntryIds(path);
  const tokens = (id: string): number => counts?.full.get(id) ?? 0;
  const messages = path.filter(isMessageEntry);
  const pinView = (entry: MessageEntry): PinView => ({ entryId: entry.id, title: entryTitle(entry), tokens: tokens(entry.id) });
  // Every list is bounded: a session of thousands of compactions, pins or sub-tasks sends the newest, and counts the rest.
  const compactions = boundList(
    path.filter((entry): entry is CompactionEntry => entry.type === 'compaction'),
    { maxItems: COMPACTION_LIMIT, keep: 'last' },
  );
  const pins = boundList(
    messages.filter((entry) => pinned.has(entry.id)),
    { maxItems: PIN_LIMIT, keep: 'last' },
  );
  const recent = recentCheckpoints(path);
  const subtasks = recentSubtasks(path);
  const omitted = { compactions: compactions.omitted, checkpoints: recent.omitted, subtasks: subtasks.more, pins: pins.omitted };
  return {
    compactions: compactions.map((entry) => ({
      id: entry.id,
      when: entry.timestamp,
      tokensBefore: entry.tokensBefore,
      tokensAfter: entry.tokensAfter,
      ...compactionCoverage(path, entry),
      edited: entry.edited,
      auto: entry.auto,
    })),
    checkpoints: recent.views,
    subtasks: subtasks.shown,
    pins: pins.map(pinView),
    pinnable: messages
      .filter((entry) => !pinned.has(entry.id) && entry.type !== 'toolResult')
      .slice(-PINNABLE_LIMIT)
      .reverse()
      .map(pinView),
    ...(Object.values(omitted).some((count) => count > 0) ? { omitted } : {}),
  };
}
