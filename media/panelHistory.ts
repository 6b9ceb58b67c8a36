// The history sections (compactions and file checkpoints on this branch, with restore) and the pins section.

import { formatAgo, formatTokens } from '../src/shared/budgetFormat';
import type { WebviewMessage } from '../src/shared/panelProtocol';
import type { CheckpointView, CompactionHistoryItem, HistoryView, PinView } from '../src/shared/panelViewModels';
import { badge, button, h } from './panelDom';
import { text } from './panelText';
import { fill } from '../src/shared/panelStrings';

type Post = (message: WebviewMessage) => void;

/** E.g. `3 turns from “fix the parser…”`: what the compaction summarized, so rows can be told apart. */
function coverage(item: CompactionHistoryItem): string {
  if (item.turns === 0) return text.partOfTurn;
  const turns = item.turns === 1 ? text.oneTurn : fill(text.manyTurns, item.turns);
  return item.firstRequest ? fill(text.turnsFrom, turns, item.firstRequest) : turns;
}

export function renderHistory(history: HistoryView, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'history-heading' } });
  section.appendChild(h('h2', { attrs: { id: 'history-heading' } }, text.historyHeading));
  if (history.compactions.length === 0) {
    section.appendChild(h('p', { class: 'muted' }, text.historyEmpty));
    return section;
  }
  const now = new Date();
  const list = h('ol', { class: 'rows' });
  for (const item of [...history.compactions].reverse()) {
    list.appendChild(
      h(
        'li',
        // Focusable from script: after Apply, focus goes to the compaction it made (the result).
        { class: 'row', key: `compaction:${item.id}`, attrs: { tabindex: '-1' } },
        h(
          'div',
          { class: 'row-main' },
          h('div', { class: 'row-title' }, coverage(item)),
          h(
            'div',
            { class: 'row-meta' },
            `${formatTokens(item.tokensBefore)} → ${formatTokens(item.tokensAfter)} · ${formatAgo(item.when, now, navigator.language)} `,
            item.auto ? badge(text.badgeAuto, 'info') : badge(text.badgeManual, 'info'),
            item.edited ? badge(text.badgeEdited, 'info', text.badgeEditedTitle) : null,
          ),
        ),
        button(text.restoreBranch, () => post({ type: 'restoreCompaction', compactionId: item.id }), {
          icon: 'history',
          secondary: true,
          disabled,
          key: `restore:${item.id}`,
          // The visible words first, so a voice-control user saying what they see finds it (WCAG 2.5.3).
          ariaLabel: fill(text.restoreBranchLabel, text.restoreBranch, coverage(item)),
        }),
      ),
    );
  }
  section.appendChild(list);
  return section;
}

function changedFiles(point: CheckpointView): string {
  const count = point.fileCount ?? point.files.length;
  const unrecorded = point.unrecorded ? `; ${point.unrecorded}` : '';
  if (count === 0) return `${text.noFileChanged}${unrecorded}`;
  const first = point.files.slice(0, 3).join(', ');
  const shown = count > 3 ? fill(text.andMore, first, count - 3) : first;
  return `${count === 1 ? fill(text.oneFileChanged, shown) : fill(text.manyFilesChanged, count, shown)}${unrecorded}`;
}

/** Every request is a checkpoint: the files the agent changed since, and the conversation, can go back to before it. */
export function renderCheckpoints(history: HistoryView, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'checkpoints-heading' } });
  section.append(
    h('h2', { attrs: { id: 'checkpoints-heading' } }, text.checkpointsHeading),
    h('p', { class: 'muted' }, text.checkpointsIntro),
  );
  const points = history.checkpoints ?? [];
  if (points.length === 0) {
    section.appendChild(h('p', { class: 'muted' }, text.checkpointsEmpty));
    return section;
  }
  const now = new Date();
  const list = h('ol', { class: 'rows' });
  for (const point of points) {
    list.appendChild(
      h(
        'li',
        { class: 'row' },
        h(
          'div',
          { class: 'row-main' },
          h('div', { class: 'row-title' }, point.title),
          h('div', { class: 'row-meta' }, `${changedFiles(point)} · ${formatAgo(point.when, now, navigator.language)}`),
        ),
        button(text.restoreCheckpoint, () => post({ type: 'restoreCheckpoint', entryId: point.entryId }), {
          icon: 'discard',
          secondary: true,
          disabled,
          key: `checkpoint:${point.entryId}`,
          ariaLabel: fill(text.restoreCheckpointLabel, point.title),
        }),
      ),
    );
  }
  section.appendChild(list);
  return section;
}

/** Sub-tasks the agent delegated on this branch: each ran in its own session, which opens here. */
export function renderSubtasks(history: HistoryView, post: Post): HTMLElement | undefined {
  const tasks = history.subtasks ?? [];
  if (tasks.length === 0) return undefined;
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'subtasks-heading' } });
  section.append(
    h('h2', { attrs: { id: 'subtasks-heading' } }, text.subtasksHeading),
    h('p', { class: 'muted' }, text.subtasksIntro),
  );
  const list = h('ol', { class: 'rows' });
  for (const task of tasks) {
    list.appendChild(
      h(
        'li',
        { class: 'row' },
        h('div', { class: 'row-main' }, h('div', { class: 'row-title' }, task.task), h('div', { class: 'row-meta' }, task.calls === 1 ? fill(text.subtaskOneCall, formatTokens(task.tokens)) : fill(text.subtaskManyCalls, task.calls, formatTokens(task.tokens)))),
        button(text.open, () => post({ type: 'openSession', sessionId: task.sessionId }), {
          icon: 'go-to-file',
          secondary: true,
          key: `subtask:${task.sessionId}`,
          ariaLabel: fill(text.openSubtaskLabel, task.task),
        }),
      ),
    );
  }
  section.appendChild(list);
  return section;
}

function pinRow(pin: PinView, action: HTMLButtonElement): HTMLElement {
  return h(
    'li',
    { class: 'row' },
    h('div', { class: 'row-main' }, h('div', { class: 'row-title' }, pin.title || text.emptyMessage), h('div', { class: 'row-meta' }, fill(text.tokens, formatTokens(pin.tokens)))),
    action,
  );
}

export function renderPins(history: HistoryView, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'pins-heading' } });
  section.append(
    h('h2', { attrs: { id: 'pins-heading' } }, text.pinsHeading),
    h('p', { class: 'muted' }, text.pinsIntro),
  );
  if (history.pins.length === 0) section.appendChild(h('p', { class: 'muted' }, text.pinsEmpty));
  else {
    section.appendChild(
      h(
        'ul',
        { class: 'rows' },
        ...history.pins.map((pin) =>
          pinRow(pin, button(text.unpin, () => post({ type: 'unpin', entryId: pin.entryId }), { icon: 'pinned', secondary: true, disabled, key: `unpin:${pin.entryId}`, ariaLabel: fill(text.unpinLabel, pin.title) })),
        ),
      ),
    );
  }
  if (history.pinnable.length > 0) {
    section.append(
      h('h3', {}, text.recentMessages),
      h(
        'ul',
        { class: 'rows' },
        ...history.pinnable.map((pin) =>
          pinRow(pin, button(text.pin, () => post({ type: 'pin', entryId: pin.entryId }), { icon: 'pin', secondary: true, disabled, key: `pin:${pin.entryId}`, ariaLabel: fill(text.pinLabel, pin.title) })),
        ),
      ),
    );
  }
  return section;
}
