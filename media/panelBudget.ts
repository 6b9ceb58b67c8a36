// The budget section: a stacked bar of the context window with a legend, numbers and accuracy badges.

import { autoCompactionLabel, budgetAccuracyLabel, formatPercent, formatTokens, lastCompactionLabel, windowLabel } from '../src/shared/budgetFormat';
import type { BudgetView } from '../src/shared/panelViewModels';
import { badge, h } from './panelDom';

interface Segment {
  key: string;
  label: string;
  tokens: number;
}

function segments(view: BudgetView): Segment[] {
  const b = view.breakdown;
  return [
    { key: 'system', label: 'System prompt', tokens: b.system },
    ...(b.instructions > 0 ? [{ key: 'instructions', label: 'Instructions', tokens: b.instructions }] : []),
    { key: 'tools', label: 'Tools', tokens: b.tools },
    { key: 'summary', label: 'Summary', tokens: b.summary },
    { key: 'messages', label: 'Messages', tokens: b.messages },
    { key: 'toolResults', label: 'Tool results', tokens: b.toolResults },
    { key: 'free', label: 'Free', tokens: b.free },
    { key: 'reserved', label: 'Reserved for output', tokens: view.reserved },
  ];
}

function accuracyBadges(view: BudgetView): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (view.unknown) out.push(badge('unknown', 'warning', 'Unknown until the next model reply (right after a compaction)'));
  else if (view.estimated) out.push(badge('estimate', 'info', 'No usage report from the endpoint yet'));
  if (view.exact) out.push(badge('exact', 'ok', 'The local tokenizer is exact for this model'));
  if (view.windowUntilLoaded) out.push(badge('unknown until loaded', 'warning', 'The server has not loaded the model: its window is known once it does (the next request loads it)'));
  else if (!view.windowKnown) out.push(badge('window unknown', 'warning', "No source told us the model's context window; set compactionAgent.context.windowTokens"));
  return out;
}

function bar(view: BudgetView, parts: Segment[]): HTMLElement {
  const total = Math.max(1, parts.reduce((sum, part) => sum + Math.max(0, part.tokens), 0));
  const alternative = parts.map((part) => `${part.label} ${formatTokens(part.tokens)}`).join(', ');
  const element = h('div', {
    class: 'budget-bar',
    attrs: { role: 'img', 'aria-label': `Context window ${formatTokens(view.contextWindow)} tokens: ${alternative}` },
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

export function renderBudget(view: BudgetView | undefined): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'budget-heading' } });
  section.appendChild(h('h2', { attrs: { id: 'budget-heading' } }, 'Context budget'));
  if (!view) {
    section.appendChild(h('p', { class: 'muted' }, 'No active session. Start a chat with @agent to see its context budget.'));
    return section;
  }
  const parts = segments(view);
  section.append(
    h(
      'div',
      { class: 'budget-headline' },
      h('span', { class: 'big-number' }, view.windowKnown ? formatPercent(view.percent) : formatTokens(view.used)),
      h('span', {}, view.windowKnown ? ` ${formatTokens(view.used)} of ${formatTokens(view.usable)} usable tokens` : ' tokens used; the model\'s window is unknown'),
      ...accuracyBadges(view),
    ),
    ...(view.reportNote ? [h('p', { class: 'problems', attrs: { role: 'status' } }, view.reportNote)] : []),
    bar(view, parts),
    legend(parts),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Model'), h('dd', {}, view.model || 'none'),
      h('dt', {}, 'Window'), h('dd', {}, windowLabel(view)),
      h('dt', {}, 'Counts'), h('dd', {}, budgetAccuracyLabel(view)),
      h('dt', {}, 'Auto-compaction'), h('dd', {}, autoCompactionLabel(view)),
      h('dt', {}, 'Last compaction'), h('dd', {}, lastCompactionLabel(view)),
    ),
  );
  return section;
}
