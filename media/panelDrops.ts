// The drop section: the context's turns and tool steps, a range to drop, the measured drop to confirm, and undo.

import { formatTokens } from '../src/shared/budgetFormat';
import type { WebviewMessage } from '../src/shared/panelProtocol';
import type { ContextTurnView, DropPreviewView, PanelState } from '../src/shared/panelViewModels';
import { fill } from '../src/shared/panelStrings';
import { badge, button, h } from './panelDom';
import { text } from './panelText';

type Post = (message: WebviewMessage) => void;

function confirmation(preview: DropPreviewView, post: Post): HTMLElement {
  const verb = preview.dropped ? text.dropVerbFrees : text.dropVerbBringsBack;
  return h(
    'div',
    { class: 'drop-confirm', attrs: { role: 'group', 'aria-labelledby': 'drop-confirm-text' } },
    h(
      'p',
      { attrs: { id: 'drop-confirm-text' } },
      fill(text.dropConfirm, preview.dropped ? text.drop : text.bringBack, preview.label, verb, formatTokens(preview.tokens), formatTokens(preview.usedBefore), formatTokens(preview.usedAfter), formatTokens(preview.usable)),
    ),
    h(
      'div',
      { class: 'button-row' },
      button(preview.dropped ? text.drop : text.bringBack, () => post({ type: 'confirmDrop', previewId: preview.id }), { icon: preview.dropped ? 'eye-closed' : 'eye', key: 'drop-confirm' }),
      button(text.cancel, () => post({ type: 'cancelDrop', previewId: preview.id }), { icon: 'close', secondary: true, key: 'drop-cancel' }),
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
      ariaLabel: fill(text.dropStepLabel, step.number, step.tools),
    }),
  );
  return h(
    'li',
    { class: turn.dropped ? 'row dropped' : 'row' },
    h(
      'div',
      { class: 'row-main' },
      h('div', { class: 'row-title' }, `${turn.number}. ${turn.request} `, turn.dropped ? badge(text.badgeDropped, 'warning') : null),
      h('div', { class: 'row-meta' }, turn.messages === 1 ? text.oneMessage : fill(text.manyMessages, turn.messages)),
      steps.length > 0 && !turn.dropped ? h('div', { class: 'button-row' }, ...steps) : null,
    ),
    button(text.dropTurn, () => post({ type: 'previewDrop', target: String(turn.number) }), {
      icon: 'eye-closed',
      secondary: true,
      disabled: disabled || turn.dropped,
      key: `drop-turn:${turn.number}`,
      ariaLabel: fill(text.dropTurnLabel, turn.number, turn.request),
    }),
  );
}

export function renderDrops(state: PanelState, disabled: boolean, post: Post): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'drops-heading' } });
  section.append(
    h('h2', { attrs: { id: 'drops-heading' } }, text.dropsHeading),
    h('p', { class: 'muted' }, text.dropsIntro),
  );
  if (state.dropPreview) section.appendChild(confirmation(state.dropPreview, post));
  const turns = state.turns ?? [];
  if (turns.length === 0) {
    section.appendChild(h('p', { class: 'muted' }, text.dropsEmpty));
    return section;
  }
  const range = h('input', { class: 'text-input', key: 'drop-range', attrs: { id: 'drop-range', type: 'text', placeholder: text.dropRangePlaceholder } });
  range.disabled = disabled;
  const measure = (): void => post({ type: 'previewDrop', target: range.value });
  range.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !disabled) measure();
  });
  section.append(
    h('label', { class: 'field-label', attrs: { for: 'drop-range' } }, text.dropRangeLabel),
    h(
      'div',
      { class: 'input-row' },
      range,
      button(text.measureDrop, measure, { icon: 'eye-closed', disabled, key: 'drop-range-measure' }),
      state.canUndoDrop ? button(text.undoLatestDrop, () => post({ type: 'previewDrop', target: 'undo' }), { icon: 'discard', secondary: true, disabled, key: 'drop-undo' }) : null,
    ),
    h('ol', { class: 'rows' }, ...[...turns].reverse().map((turn) => turnRow(turn, disabled, post))),
  );
  return section;
}
