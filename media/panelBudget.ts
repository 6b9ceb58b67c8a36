// The budget section: a stacked bar of the context window with a legend, numbers and accuracy badges.

import { autoCompactionLabel, budgetAccuracyLabel, formatPercent, formatTokens, lastCompactionLabel, windowLabel } from '../src/shared/budgetFormat';
import type { BudgetView } from '../src/shared/panelViewModels';
import { badge, h, icon } from './panelDom';
import { text } from './panelText';
import { fill } from '../src/shared/panelStrings';

interface Segment {
  key: string;
  label: string;
  tokens: number;
}

function segments(view: BudgetView): Segment[] {
  const b = view.breakdown;
  return [
    { key: 'system', label: text.segmentSystem, tokens: b.system },
    ...(b.instructions > 0 ? [{ key: 'instructions', label: text.segmentInstructions, tokens: b.instructions }] : []),
    { key: 'tools', label: text.segmentTools, tokens: b.tools },
    { key: 'summary', label: text.segmentSummary, tokens: b.summary },
    { key: 'messages', label: text.segmentMessages, tokens: b.messages },
    { key: 'toolResults', label: text.segmentToolResults, tokens: b.toolResults },
    { key: 'free', label: text.segmentFree, tokens: b.free },
    { key: 'reserved', label: text.segmentReserved, tokens: view.reserved },
  ];
}

function accuracyBadges(view: BudgetView): HTMLElement[] {
  const out: HTMLElement[] = [];
  // The level the status bar colours, in an icon and words (High Contrast shows no colour, a screen reader hears none).
  if (view.alert) {
    const words = fill(view.alert.level === 'error' ? text.levelError : text.levelWarning, formatPercent(view.alert.threshold));
    out.push(h('span', { class: `badge badge-${view.alert.level} budget-level` }, icon(view.alert.level), ` ${words}`));
  }
  if (view.unknown) out.push(badge(text.badgeUnknown, 'warning', text.badgeUnknownTitle));
  else if (view.estimated) out.push(badge(text.badgeEstimate, 'info', text.badgeEstimateTitle));
  if (view.exact) out.push(badge(text.badgeExact, 'ok', text.badgeExactTitle));
  if (view.windowUntilLoaded) out.push(badge(text.badgeUntilLoaded, 'warning', text.badgeUntilLoadedTitle));
  else if (!view.windowKnown) out.push(badge(text.badgeWindowUnknown, 'warning', text.badgeWindowUnknownTitle));
  return out;
}

function bar(view: BudgetView, parts: Segment[]): HTMLElement {
  const total = Math.max(1, parts.reduce((sum, part) => sum + Math.max(0, part.tokens), 0));
  const alternative = parts.map((part) => `${part.label} ${formatTokens(part.tokens)}`).join(', ');
  const element = h('div', {
    class: 'budget-bar',
    attrs: { role: 'img', 'aria-label': fill(text.budgetBarLabel, formatTokens(view.contextWindow), alternative) },
  });
  for (const part of parts) {
    if (part.tokens <= 0) continue;
    const piece = h('div', { class: `segment segment-${part.key}`, attrs: { title: `${part.label}: ${formatTokens(part.tokens)}` } });
    // CSSOM writes are allowed by the CSP (no inline style attributes are parsed).
    piece.style.flexGrow = String(Math.max(0, part.tokens) / total);
    element.appendChild(piece);
  }
  return element;
}

function legend(parts: Segment[]): HTMLElement {
  return h(
    'ul',
    { class: 'legend', attrs: { 'aria-hidden': 'true' } },
    ...parts.map((part) =>
      h('li', {}, h('span', { class: `swatch segment-${part.key}` }), h('span', { class: 'legend-label' }, part.label), h('span', { class: 'num' }, formatTokens(part.tokens))),
    ),
  );
}

/** The budget of the session shown; without a budget, that there is no session or (with one) that it is being counted. */
export function renderBudget(view: BudgetView | undefined, hasSession = false): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'budget-heading' } });
  // Focusable from script: where focus goes when a hand-off's new session replaces the one shown.
  section.appendChild(h('h2', { key: 'budget-heading', attrs: { id: 'budget-heading', tabindex: '-1' } }, text.budgetHeading));
  if (!view) {
    section.appendChild(h('p', { class: 'muted' }, hasSession ? text.budgetCounting : text.budgetNoSession));
    return section;
  }
  const parts = segments(view);
  section.append(
    h(
      'div',
      { class: 'budget-headline' },
      h('span', { class: 'big-number' }, view.windowKnown ? formatPercent(view.percent) : formatTokens(view.used)),
      h('span', {}, view.windowKnown ? fill(text.budgetUsable, formatTokens(view.used), formatTokens(view.usable)) : text.budgetWindowUnknown),
      ...accuracyBadges(view),
    ),
    ...(view.reportNote ? [h('p', { class: 'problems', attrs: { role: 'status' } }, view.reportNote)] : []),
    bar(view, parts),
    legend(parts),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, text.factModel), h('dd', {}, view.model || text.factNone),
      h('dt', {}, text.factWindow), h('dd', {}, windowLabel(view)),
      h('dt', {}, text.factCounts), h('dd', {}, budgetAccuracyLabel(view)),
      h('dt', {}, text.factAutoCompaction), h('dd', {}, autoCompactionLabel(view)),
      h('dt', {}, text.factLastCompaction), h('dd', {}, lastCompactionLabel(view)),
    ),
  );
  return section;
}
