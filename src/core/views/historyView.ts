// The panel's history: compactions and file checkpoints on the current branch, pinned messages, and recent messages one can pin.
import { checkpoints, unrecordedSentence } from '../checkpoints/fileCheckpoints';
import { pathMarkers } from '../context/pathMarkers';
import { userContent } from '../context/userContent';
import { countBelow, shortened } from './compactionDescription';
import { boundList } from '../session/boundedList';
import type { EntryCounts } from '../tokens/entryTokens';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { entryTitle } from '../session/entryTitle';

export { entryTitle } from '../session/entryTitle';
import type { CheckpointView, CompactionHistoryItem, EntryView, HistoryView, PinView, SubtaskView } from '../../shared/panelViewModels';
import { foldPath, positionBefore, pushUndoable, type FoldState, type PathFold, type Undo } from '../session/pathFold';
import { OwnedMemo } from '../session/ownedMemo';

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

/** The newest CHECKPOINT_LIMIT checkpoints (the walk stops there) and how many older ones there are. */
function recentCheckpoints(path: readonly SessionEntry[], total: number): { views: CheckpointView[]; omitted: number } {
  const last = path.at(-1);
  const known = last ? checkpointMemo.get(last) : undefined;
  if (known && known.length === path.length) return known;
  const views = checkpoints(path, CHECKPOINT_LIMIT).map((point) => {
    const unrecorded = unrecordedSentence(point);
    return { entryId: point.entryId, kind: point.kind, title: point.title, when: point.when, files: point.files, fileCount: point.fileCount, ...(unrecorded ? { unrecorded } : {}) };
  });
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

/**
 * What the panel's history reads of a path, kept per session as paths grow: every compaction described once (what it
 * summarized: the person's requests between the previous kept part and its own), and where the requests and the
 * delegated sub-tasks are.
 */
class HistoryState implements FoldState {
  readonly compactions: CompactionHistoryItem[] = [];
  /** Positions of the person's requests, ascending. */
  readonly requests: number[] = [];
  /** Positions of delegated sub-tasks' results, ascending. */
  readonly subtasks: number[] = [];
  /** Where the next compaction's summary starts: the previous one's kept part (or after it). */
  start = 0;
  /** Requests and file restores: every checkpoint checkpoints() lists. */
  checkpoints = 0;

  step(entry: SessionEntry, index: number, path: readonly SessionEntry[], undo: Undo): void {
    if ((entry.type === 'user' && !entry.synthetic) || entry.type === 'fileRestore') {
      this.checkpoints++;
      undo?.(() => {
        this.checkpoints--;
      });
    }
    if (entry.type === 'user' && !entry.synthetic) pushUndoable(this.requests, index, undo);
    else if (entry.type === 'toolResult' && entry.subagent) pushUndoable(this.subtasks, index, undo);
    else if (entry.type === 'compaction') this.compaction(entry, index, path, undo);
  }

  private compaction(entry: CompactionEntry, index: number, path: readonly SessionEntry[], undo: Undo): void {
    const keptAt = entry.firstKeptEntryId === null ? -1 : positionBefore(path, entry.firstKeptEntryId, index);
    const start = this.start;
    const end = keptAt >= start ? keptAt : index;
    const from = countBelow(this.requests, start);
    const turns = end > start ? countBelow(this.requests, end) - from : 0;
    const first = turns > 0 ? path[this.requests[from] as number] : undefined;
    const coverage = { turns, firstRequest: first?.type === 'user' ? shortened(first.text) : '' };
    pushUndoable(this.compactions, { id: entry.id, when: entry.timestamp, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter, ...coverage, edited: entry.edited, auto: entry.auto }, undo);
    this.start = keptAt >= 0 ? keptAt : index + 1;
    undo?.(() => {
      this.start = start;
    });
  }
}

const folds = new OwnedMemo<SessionEntry, { fold: PathFold; state: HistoryState }>('history fold');

/** The newest SUBTASK_LIMIT delegated sub-tasks on the path, with the task their call gave, and how many more there are. */
function recentSubtasks(path: readonly SessionEntry[], positions: readonly number[]): { shown: SubtaskView[]; more: number } {
  const found: SubtaskView[] = [];
  for (let at = positions.length - 1; at >= 0 && found.length < SUBTASK_LIMIT; at--) {
    const index = positions[at] as number;
    const entry = path[index] as SessionEntry;
    if (entry.type !== 'toolResult' || !entry.subagent) continue;
    const link = entry.subagent;
    found.push({ sessionId: link.sessionId, task: taskOf(callArgumentsOf(path, index, entry.toolCallId)), calls: link.calls, tokens: link.promptTokens + link.completionTokens });
  }
  return { shown: found, more: Math.max(0, positions.length - found.length) };
}

/**
 * The panel's history. Costs what it shows (the compactions, the pins, the newest checkpoints, sub-tasks and messages),
 * not the session's length: the panel asks on every appended entry.
 */
export function toHistoryView(path: readonly SessionEntry[], counts?: EntryCounts): HistoryView {
  const markers = pathMarkers(path);
  const { state } = foldPath(folds, path, () => new HistoryState());
  const tokens = (id: string): number => counts?.full.get(id) ?? 0;
  const pinView = (entry: MessageEntry): PinView => ({ entryId: entry.id, title: entryTitle(entry), tokens: tokens(entry.id) });
  const pinnedAt = markers
    .pinnedIds()
    .map((id) => markers.pinnedAt(id))
    .filter((at): at is number => at !== undefined && isMessageEntry(path[at] as SessionEntry))
    .sort((a, b) => a - b);
  const pinnable: PinView[] = [];
  for (let index = path.length - 1; index >= 0 && pinnable.length < PINNABLE_LIMIT; index--) {
    const entry = path[index] as SessionEntry;
    if (isMessageEntry(entry) && entry.type !== 'toolResult' && !markers.isPinned(entry.id)) pinnable.push(pinView(entry));
  }
  // Every list is bounded: a session of thousands of compactions, pins or sub-tasks sends the newest, and counts the rest.
  const compactions = boundList(state.compactions, { maxItems: COMPACTION_LIMIT, keep: 'last' });
  const pins = boundList(pinnedAt, { maxItems: PIN_LIMIT, keep: 'last' });
  const recent = recentCheckpoints(path, state.checkpoints);
  const subtasks = recentSubtasks(path, state.subtasks);
  const omitted = { compactions: compactions.omitted, checkpoints: recent.omitted, subtasks: subtasks.more, pins: pins.omitted };
  return {
    compactions: [...compactions],
    checkpoints: recent.views,
    subtasks: subtasks.shown,
    pins: pins.map((at) => pinView(path[at] as MessageEntry)),
    pinnable,
    ...(Object.values(omitted).some((count) => count > 0) ? { omitted } : {}),
  };
}
