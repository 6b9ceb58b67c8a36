// Pure formatting of tokens and cost for the status bar tooltip and the panel: money with Intl, one-line summaries.

import { escapeMarkdownCell, formatTokens } from './budgetFormat';
import type { UsageFigures } from './panelViewModels';

const DOLLARS = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
/** Below ten cents two significant digits say more than cents: $0.0042 rather than $0.00. */
const SMALL_DOLLARS = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });

/** 0.8412 → "$0.84", 12.5 → "$12.50", 0.0042 → "$0.0042", 0 → "$0.00"; negative and non-finite amounts show as $0.00. */
export function formatUsd(amount: number): string {
  const value = Number.isFinite(amount) && amount > 0 ? amount : 0;
  return value > 0 && value < 0.1 ? SMALL_DOLLARS.format(value) : DOLLARS.format(value);
}

/** Share of the prompt served from the provider's cache, 0..100, rounded; 0 without prompt tokens. */
export function cachedPercent(figures: Pick<UsageFigures, 'promptTokens' | 'cachedTokens'>): number {
  if (figures.promptTokens <= 0) return 0;
  return Math.round((Math.min(figures.cachedTokens, figures.promptTokens) / figures.promptTokens) * 100);
}

/** Model calls (summaries included) whose cost the endpoint did not report. */
export function unpricedCalls(figures: UsageFigures): number {
  return figures.calls - figures.pricedCalls + figures.unreportedCalls + figures.summaries;
}

/** "$0.84", "$0.84 (2 calls without a reported cost)", or "cost not reported" when no call reported one. */
export function costLabel(figures: UsageFigures): string {
  if (figures.pricedCalls === 0) return 'cost not reported';
  const missing = unpricedCalls(figures);
  if (missing === 0) return formatUsd(figures.cost);
  return `${formatUsd(figures.cost)} (${missing} call${missing === 1 ? '' : 's'} without a reported cost)`;
}

/** "1.2M prompt (64% cached)": the cached share only when the endpoint reported some. */
export function promptLabel(figures: UsageFigures): string {
  const cached = figures.cachedTokens > 0 ? ` (${cachedPercent(figures)}% cached)` : '';
  return `${formatTokens(figures.promptTokens)} prompt${cached}`;
}

export function summariesLabel(figures: Pick<UsageFigures, 'summaries'>): string {
  return `${figures.summaries} summar${figures.summaries === 1 ? 'y' : 'ies'}`;
}

/** E.g. "1.2M prompt (64% cached), 12k output, 2 summaries, $0.84". */
export function usageLine(figures: UsageFigures): string {
  return `${promptLabel(figures)}, ${formatTokens(figures.outputTokens)} output, ${summariesLabel(figures)}, ${costLabel(figures)}`;
}

/** The status bar tooltip's line: "Session: 1.2M prompt (64% cached), 12k output, 2 summaries, $0.84". */
export function sessionUsageLine(figures: UsageFigures): string {
  return `Session: ${usageLine(figures)}`;
}

/** The session line as a tooltip paragraph of its own, escaped for Markdown. */
export function usageTooltipMarkdown(figures: UsageFigures): string {
  return `\n\n${escapeMarkdownCell(sessionUsageLine(figures))}`;
}
