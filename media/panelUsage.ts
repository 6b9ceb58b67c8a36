// The "Tokens and cost" section: the branch's prompt, cached, output tokens, summaries and cost, and the last few turns.

import { formatTokens } from '../src/shared/budgetFormat';
import type { TurnUsageView, UsageFigures, UsageView } from '../src/shared/panelViewModels';
import { cachedPercent, costLabel, formatUsd, summariesLabel } from '../src/shared/usageFormat';
import { h } from './panelDom';

function cachedLabel(figures: UsageFigures): string {
  return figures.cachedTokens > 0 ? `${formatTokens(figures.cachedTokens)} (${cachedPercent(figures)}%)` : 'none reported';
}

function callsLabel(figures: UsageFigures): string {
  const calls = `${figures.calls} with a usage report`;
  return figures.unreportedCalls > 0 ? `${calls}, ${figures.unreportedCalls} without` : calls;
}

function totals(figures: UsageFigures): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Prompt'), h('dd', {}, `${formatTokens(figures.promptTokens)} tokens`),
    h('dt', {}, 'Cached'), h('dd', {}, cachedLabel(figures)),
    h('dt', {}, 'Output'), h('dd', {}, `${formatTokens(figures.outputTokens)} tokens`),
    h('dt', {}, 'Model calls'), h('dd', {}, callsLabel(figures)),
    h('dt', {}, 'Summaries'), h('dd', {}, figures.summaries > 0 ? `${summariesLabel(figures)} of ${formatTokens(figures.summarizedTokens)} tokens` : 'none'),
    h('dt', {}, 'Cost'), h('dd', {}, costLabel(figures)),
  );
}

function turnRow(turn: TurnUsageView): HTMLTableRowElement {
  const cell = (text: string, extra = ''): HTMLTableCellElement => h('td', { class: `num${extra}` }, text);
  return h(
    'tr',
    {},
    h('th', { class: 'turn-request', attrs: { scope: 'row', title: turn.request } }, `${turn.turn}. ${turn.request || '(empty request)'}`),
    cell(formatTokens(turn.promptTokens)),
    cell(turn.cachedTokens > 0 ? `${cachedPercent(turn)}%` : '–'),
    cell(formatTokens(turn.outputTokens)),
    cell(String(turn.summaries), ' col-summaries'),
    cell(turn.pricedCalls > 0 ? formatUsd(turn.cost) : '–'),
  );
}

function recentTurns(view: UsageView): HTMLElement {
  const heading = view.turnCount > view.recentTurns.length ? `Last ${view.recentTurns.length} of ${view.turnCount} turns` : 'Turns';
  const head = ['Request', 'Prompt', 'Cached', 'Output', 'Summaries', 'Cost'];
  return h(
    'table',
    { class: 'usage-table' },
    h('caption', {}, heading),
    h('thead', {}, h('tr', {}, ...head.map((label) => h('th', { class: label === 'Summaries' ? 'col-summaries' : undefined, attrs: { scope: 'col', title: label } }, label)))),
    h('tbody', {}, ...[...view.recentTurns].reverse().map(turnRow)),
  );
}

export function renderUsage(view: UsageView | undefined): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'usage-heading' } });
  section.appendChild(h('h2', { attrs: { id: 'usage-heading' } }, 'Tokens and cost'));
  if (!view) {
    section.appendChild(h('p', { class: 'muted' }, 'No active session.'));
    return section;
  }
  section.appendChild(totals(view.session));
  if (view.premiumRequests) {
    const { model, requests } = view.premiumRequests;
    section.appendChild(
      h('p', { class: 'premium-requests' }, `Premium requests: ${requests} request${requests === 1 ? '' : 's'} to ${model} on this branch; with Copilot each may count as a premium request.`),
    );
  }
  if (view.recentTurns.length > 0) section.appendChild(recentTurns(view));
  section.appendChild(h('p', { class: 'muted' }, 'Figures as the endpoint reported them for this branch. Summary calls report no usage; cost shows where the server reports it (OpenRouter does).'));
  return section;
}
