// The history sections (compactions and file checkpoints on this branch, with restore) and the pins section.

import { formatAgo, formatTokens } from '../src/shared/budgetFormat';
import type { WebviewMessage } from '../src/shared/panelProtocol';
import type { CheckpointView, CompactionHistoryItem, HistoryView, PinView } from '../src/shared/panelViewModels';
import { badge, button, h } from './panelDom';

type Post = (message: WebviewMessage) => void;

/** E.g. `3 turns from “fix the parser…”`: what the compaction summarized, so rows can be told apart. */
function coverage(item: CompactionHistoryItem): string {
  if (item.turns === 0) return 'Part of a turn';
  return `${item.turns} turn${item.turns === 1 ? '' : 's'}${item.firstRequest ? ` from “${item.firstRequest}”` : ''}`;
}

export function renderHistory(history: HistoryView, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'history-heading' } });
  section.appendChild(h('h2', { attrs: { id: 'history-heading' } }, 'Compactions on this branch'));
  if (history.compactions.length === 0) {
    section.appendChild(h('p', { class: 'muted' }, 'No compaction yet.'));
    return section;
  }
  const now = new Date();
  const list = h('ol', { class: 'rows' });
  for (const item of [...history.compactions].reverse()) {
    list.appendChild(
      h(
        'li',
        { class: 'row' },
        h(
          'div',
          { class: 'row-main' },
          h('div', { class: 'row-title' }, coverage(item)),
          h(
            'div',
            { class: 'row-meta' },
            `${formatTokens(item.tokensBefore)} → ${formatTokens(item.tokensAfter)} · ${formatAgo(item.when, now, navigator.language)} `,
            item.auto ? badge('auto', 'info') : badge('manual', 'info'),
            item.edited ? badge('edited', 'info', 'The summary was edited before it was applied') : null,
          ),
        ),
        button('Restore pre-compaction branch', () => post({ type: 'restoreCompaction', compactionId: item.id }), {
          icon: 'history',
          secondary: true,
          disabled,
          key: `restore:${item.id}`,
          ariaLabel: `Restore the branch as it was before the compaction of ${coverage(item)}`,
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
  if (count === 0) return `no file changed since${unrecorded}`;
  const shown = point.files.slice(0, 3).join(', ');
  const more = count > 3 ? ` and ${count - 3} more` : '';
  return `${count} file${count === 1 ? '' : 's'} changed since: ${shown}${more}${unrecorded}`;
}

/** Every request is a checkpoint: the files the agent changed since, and the conversation, can go back to before it. */
export function renderCheckpoints(history: HistoryView, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'checkpoints-heading' } });
  section.append(
    h('h2', { attrs: { id: 'checkpoints-heading' } }, 'Checkpoints'),
    h('p', { class: 'muted' }, 'Restore the files, the conversation or both to before a request. Nothing is lost: a restore is itself a checkpoint.'),
  );
  const points = history.checkpoints ?? [];
  if (points.length === 0) {
    section.appendChild(h('p', { class: 'muted' }, 'No request yet.'));
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
        button('Restore…', () => post({ type: 'restoreCheckpoint', entryId: point.entryId }), {
          icon: 'discard',
          secondary: true,
          disabled,
          key: `checkpoint:${point.entryId}`,
          ariaLabel: `Restore to before ${point.title}`,
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
    h('h2', { attrs: { id: 'subtasks-heading' } }, 'Sub-tasks'),
    h('p', { class: 'muted' }, 'Each ran in its own session with read-only tools; only its answer joined this conversation.'),
  );
  const list = h('ol', { class: 'rows' });
  for (const task of tasks) {
    list.appendChild(
      h(
        'li',
        { class: 'row' },
        h('div', { class: 'row-main' }, h('div', { class: 'row-title' }, task.task), h('div', { class: 'row-meta' }, `${task.calls} model call${task.calls === 1 ? '' : 's'} reported · ${formatTokens(task.tokens)} tokens`)),
        button('Open', () => post({ type: 'openSession', sessionId: task.sessionId }), {
          icon: 'go-to-file',
          secondary: true,
          key: `subtask:${task.sessionId}`,
          ariaLabel: `Open the session of the sub-task ${task.task}`,
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
    h('div', { class: 'row-main' }, h('div', { class: 'row-title' }, pin.title || '(empty message)'), h('div', { class: 'row-meta' }, `${formatTokens(pin.tokens)} tokens`)),
    action,
  );
}

export function renderPins(history: HistoryView, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'pins-heading' } });
  section.append(
    h('h2', { attrs: { id: 'pins-heading' } }, 'Pinned messages'),
    h('p', { class: 'muted' }, 'Pinned messages survive every compaction verbatim.'),
  );
  if (history.pins.length === 0) section.appendChild(h('p', { class: 'muted' }, 'Nothing pinned.'));
  else {
    section.appendChild(
      h(
        'ul',
        { class: 'rows' },
        ...history.pins.map((pin) =>
          pinRow(pin, button('Unpin', () => post({ type: 'unpin', entryId: pin.entryId }), { icon: 'pinned', secondary: true, disabled, key: `unpin:${pin.entryId}`, ariaLabel: `Unpin "${pin.title}"` })),
        ),
      ),
    );
  }
  if (history.pinnable.length > 0) {
    section.append(
      h('h3', {}, 'Recent messages'),
      h(
        'ul',
        { class: 'rows' },
        ...history.pinnable.map((pin) =>
          pinRow(pin, button('Pin', () => post({ type: 'pin', entryId: pin.entryId }), { icon: 'pin', secondary: true, disabled, key: `pin:${pin.entryId}`, ariaLabel: `Pin "${pin.title}"` })),
        ),
      ),
    );
  }
  return section;
}
