// The drop section: the context's turns and tool steps, a range to drop, the measured drop to confirm, and undo.

import { formatTokens } from '../src/shared/budgetFormat';
import type { WebviewMessage } from '../src/shared/panelProtocol';
import type { ContextTurnView, DropPreviewView, PanelState } from '../src/shared/panelViewModels';
import { badge, button, h } from './panelDom';

type Post = (message: WebviewMessage) => void;

function confirmation(preview: DropPreviewView, post: Post): HTMLElement {
  const verb = preview.dropped ? 'frees' : 'brings back';
  return h(
    'div',
    { class: 'drop-confirm', attrs: { role: 'group', 'aria-labelledby': 'drop-confirm-text' } },
    h(
      'p',
      { attrs: { id: 'drop-confirm-text' } },
      `${preview.dropped ? 'Drop' : 'Bring back'} ${preview.label}? It ${verb} ~${formatTokens(preview.tokens)} tokens (${formatTokens(preview.usedBefore)} → ${formatTokens(preview.usedAfter)} of ${formatTokens(preview.usable)} usable). Nothing is deleted.`,
    ),
    h(
      'div',
      { class: 'button-row' },
      button(preview.dropped ? 'Drop' : 'Bring back', () => post({ type: 'confirmDrop', previewId: preview.id }), { icon: preview.dropped ? 'eye-closed' : 'eye', key: 'drop-confirm' }),
      button('Cancel', () => post({ type: 'cancelDrop', previewId: preview.id }), { icon: 'close', secondary: true, key: 'drop-cancel' }),
    ),
  );
}

function turnRow(turn: ContextTurnView, disabled: boolean, post: Post): HTMLElement {
  const steps = turn.steps.map((step) =>
    button(`${step.number} ${step.tools}`, () => post({ type: 'previewDrop', target: step.number }), {
      icon: 'tools',
      secondary: true,
      disabled: disabled || step.dropped,
      key: `drop-step:${step.number}`,
      ariaLabel: `Drop tool step ${step.number} (${step.tools}) with its results`,
    }),
  );
  return h(
    'li',
    { class: turn.dropped ? 'row dropped' : 'row' },
    h(
      'div',
      { class: 'row-main' },
      h('div', { class: 'row-title' }, `${turn.number}. ${turn.request} `, turn.dropped ? badge('dropped', 'warning') : null),
      h('div', { class: 'row-meta' }, `${turn.messages} message${turn.messages === 1 ? '' : 's'}`),
      steps.length > 0 && !turn.dropped ? h('div', { class: 'button-row' }, ...steps) : null,
    ),
    button('Drop…', () => post({ type: 'previewDrop', target: String(turn.number) }), {
      icon: 'eye-closed',
      secondary: true,
      disabled: disabled || turn.dropped,
      key: `drop-turn:${turn.number}`,
      ariaLabel: `Drop turn ${turn.number}: ${turn.request}`,
    }),
  );
}

export function renderDrops(state: PanelState, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'drops-heading' } });
  section.append(
    h('h2', { attrs: { id: 'drops-heading' } }, 'Drop from context'),
    h('p', { class: 'muted' }, 'Take a failed approach, a turn or one tool step (with its call and results) out of what the model sees. You see what it frees before you confirm; nothing is deleted, and later summaries say it was dropped on purpose.'),
  );
  if (state.dropPreview) section.appendChild(confirmation(state.dropPreview, post));
  const turns = state.turns ?? [];
  if (turns.length === 0) {
    section.appendChild(h('p', { class: 'muted' }, 'No turns in the context yet.'));
    return section;
  }
  const range = h('input', { class: 'text-input', key: 'drop-range', attrs: { id: 'drop-range', type: 'text', placeholder: 'Turns, e.g. 2-4' } });
  range.disabled = disabled;
  const measure = (): void => post({ type: 'previewDrop', target: range.value });
  range.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !disabled) measure();
  });
  section.append(
    h('label', { class: 'field-label', attrs: { for: 'drop-range' } }, 'Drop a range of turns'),
    h(
      'div',
      { class: 'input-row' },
      range,
      button('Measure drop', measure, { icon: 'eye-closed', disabled, key: 'drop-range-measure' }),
      state.canUndoDrop ? button('Undo latest drop', () => post({ type: 'previewDrop', target: 'undo' }), { icon: 'discard', secondary: true, disabled, key: 'drop-undo' }) : null,
    ),
    h('ol', { class: 'rows' }, ...[...turns].reverse().map((turn) => turnRow(turn, disabled, post))),
  );
  return section;
}
