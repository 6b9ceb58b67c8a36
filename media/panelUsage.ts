// The "Tokens and cost" section: the branch's prompt, cached, output tokens, summaries and cost, and the last few turns.

import { formatTokens } from '../src/shared/budgetFormat';
import type { TurnUsageView, UsageFigures, UsageView } from '../src/shared/panelViewModels';
import { cachedPercent, costLabel, formatUsd, summariesLabel } from '../src/shared/usageFormat';
import { h } from './panelDom';
import { text } from './panelText';
import { fill } from '../src/shared/panelStrings';

function cachedLabel(figures: UsageFigures): string {
  return figures.cachedTokens > 0 ? fill(text.cachedShare, formatTokens(figures.cachedTokens), cachedPercent(figures)) : text.noneReported;
}

function callsLabel(figures: UsageFigures): string {
  const calls = fill(text.callsReported, figures.calls);
  return figures.unreportedCalls > 0 ? fill(text.callsUnreported, calls, figures.unreportedCalls) : calls;
}

function totals(figures: UsageFigures): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, text.usagePrompt), h('dd', {}, fill(text.tokens, formatTokens(figures.promptTokens))),
    h('dt', {}, text.usageCached), h('dd', {}, cachedLabel(figures)),
    h('dt', {}, text.usageOutput), h('dd', {}, fill(text.tokens, formatTokens(figures.outputTokens))),
    h('dt', {}, text.usageModelCalls), h('dd', {}, callsLabel(figures)),
    h('dt', {}, text.usageSummaries), h('dd', {}, figures.summaries > 0 ? fill(text.usageSummariesOf, summariesLabel(figures), formatTokens(figures.summarizedTokens)) : text.factNone),
    h('dt', {}, text.usageCost), h('dd', {}, costLabel(figures)),
  );
}

function turnRow(turn: TurnUsageView): HTMLTableRowElement {
  const cell = (text: string, extra = ''): HTMLTableCellElement => h('td', { class: `num${extra}` }, text);
  return h(
    'tr',
    {},
    h('th', { class: 'turn-request', attrs: { scope: 'row', title: turn.request } }, `${turn.turn}. ${turn.request || text.emptyRequest}`),
    cell(formatTokens(turn.promptTokens)),
    cell(turn.cachedTokens > 0 ? `${cachedPercent(turn)}%` : '–'),
    cell(formatTokens(turn.outputTokens)),
    cell(String(turn.summaries), ' col-summaries'),
    cell(turn.pricedCalls > 0 ? formatUsd(turn.cost) : '–'),
  );
}

function recentTurns(view: UsageView): HTMLElement {
  const heading = view.turnCount > view.recentTurns.length ? fill(text.lastTurns, view.recentTurns.length, view.turnCount) : text.turns;
  const head = [text.usageRequest, text.usagePrompt, text.usageCached, text.usageOutput, text.usageSummaries, text.usageCost];
  return h(
    'table',
    { class: 'usage-table' },
    h('caption', {}, heading),
    h('thead', {}, h('tr', {}, ...head.map((label) => h('th', { class: label === text.usageSummaries ? 'col-summaries' : undefined, attrs: { scope: 'col', title: label } }, label)))),
    h('tbody', {}, ...[...view.recentTurns].reverse().map(turnRow)),
  );
}

export function renderUsage(view: UsageView | undefined): HTMLElement {
  const section = h('section', { class: 'card', attrs: { 'aria-labelledby': 'usage-heading' } });
  section.appendChild(h('h2', { attrs: { id: 'usage-heading' } }, text.usageHeading));
  if (!view) {
    section.appendChild(h('p', { class: 'muted' }, text.usageNoSession));
    return section;
  }
  section.appendChild(totals(view.session));
  if (view.premiumRequests) {
    const { model, requests } = view.premiumRequests;
    section.appendChild(
      h('p', { class: 'premium-requests' }, requests === 1 ? fill(text.premiumOne, model) : fill(text.premiumMany, requests, model)),
    );
  }
  if (view.recentTurns.length > 0) section.appendChild(recentTurns(view));
  section.appendChild(h('p', { class: 'muted' }, text.usageNote));
  return section;
}
