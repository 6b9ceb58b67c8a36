// Pure formatting of the context budget for the status bar and the panel: token counts, marks, levels, tooltip.

import type { BudgetView } from './panelViewModels';

export type BudgetLevel = 'normal' | 'warning' | 'error';

export interface BudgetThresholds {
  warningPercent: number;
  errorPercent: number;
}

/** 950 → "950", 53_100 → "53.1k", 1_250_000 → "1.25M"; negative and non-finite counts show as 0. */
export function formatTokens(tokens: number): string {
  const value = Number.isFinite(tokens) && tokens > 0 ? Math.round(tokens) : 0;
  if (value < 1000) return String(value);
  if (value < 999_950) return `${trimZeros((value / 1000).toFixed(1))}k`;
  return `${trimZeros((value / 1_000_000).toFixed(2))}M`;
}

function trimZeros(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** "~" while the counts are estimates, "?" right after a compaction until the next usage report. */
export function budgetMark(view: Pick<BudgetView, 'estimated' | 'unknown'>): '' | '~' | '?' {
  if (view.unknown) return '?';
  return view.estimated ? '~' : '';
}

export function formatPercent(percent: number): string {
  if (!Number.isFinite(percent) || percent <= 0) return '0%';
  return `${Math.round(percent)}%`;
}

/** The status bar's leading icon: the level's own (warning, error) so the state shows without colour, else the pie chart. */
const LEVEL_ICONS: Record<BudgetLevel, string> = { normal: '$(pie-chart)', warning: '$(warning)', error: '$(error)' };

/**
 * The status bar text, e.g. `$(pie-chart) ~42% 53.1k/111.6k` (used/usable: the window less the output reserve);
 * `53.1k/? window` when the window is unknown. At the warning and error levels the icon says so (`$(warning)`,
 * `$(error)`), and a trailing `$(info)` says the endpoint's last usage report was not believed.
 */
export function budgetStatusText(view: BudgetView, level: BudgetLevel = 'normal'): string {
  const note = view.reportNote ? ' $(info)' : '';
  const icon = LEVEL_ICONS[level];
  if (view.windowUntilLoaded) return `${icon} ${budgetMark(view)}${formatTokens(view.used)}/? until loaded${note}`;
  if (!view.windowKnown) return `${icon} ${budgetMark(view)}${formatTokens(view.used)}/? window${note}`;
  return `${icon} ${budgetMark(view)}${formatPercent(view.percent)} ${formatTokens(view.used)}/${formatTokens(view.usable)}${note}`;
}

/** The level in words, for the tooltip and the accessible name: empty at the normal level. */
export function budgetLevelWords(level: BudgetLevel, thresholds: BudgetThresholds): string {
  if (level === 'error') return `error: nearly full (${formatPercent(thresholds.errorPercent)} or more used)`;
  if (level === 'warning') return `warning: filling up (${formatPercent(thresholds.warningPercent)} or more used)`;
  return '';
}

/** Which background the status bar takes; the error threshold wins when both are met. */
export function budgetLevel(percent: number, thresholds: BudgetThresholds, windowKnown = true): BudgetLevel {
  if (!windowKnown || !Number.isFinite(percent)) return 'normal';
  if (percent >= thresholds.errorPercent) return 'error';
  if (percent >= thresholds.warningPercent) return 'warning';
  return 'normal';
}

/** The window and where it came from, e.g. "131k (from the endpoint's model list)" or "unknown (assuming 128k)". */
export function windowLabel(view: Pick<BudgetView, 'contextWindow' | 'windowSource' | 'windowKnown' | 'windowUntilLoaded'>): string {
  if (view.windowUntilLoaded) return `unknown until loaded (${view.windowSource})`;
  if (!view.windowKnown) return `unknown (assuming ${formatTokens(view.contextWindow)}; ${view.windowSource})`;
  return `${formatTokens(view.contextWindow)} (${view.windowSource})`;
}

/** What the counts can be trusted for, in words. */
export function budgetAccuracyLabel(view: Pick<BudgetView, 'estimated' | 'unknown' | 'exact'>): string {
  if (view.unknown) return 'unknown until the next model reply';
  if (view.estimated) return view.exact ? 'estimate (exact tokenizer, no usage report yet)' : 'estimate';
  return view.exact ? 'exact' : 'reported by the endpoint';
}

/** The breakdown as label/value rows, in the order of the panel's bar; reserved comes last, apart. */
export function budgetRows(view: BudgetView): Array<[string, string]> {
  const b = view.breakdown;
  return [
    ['System prompt', formatTokens(b.system)],
    ...(b.instructions > 0 ? [['Instructions', formatTokens(b.instructions)] satisfies [string, string]] : []),
    ['Tools', formatTokens(b.tools)],
    ['Summary', formatTokens(b.summary)],
    ['Messages', formatTokens(b.messages)],
    ['Tool results', formatTokens(b.toolResults)],
    ['Free', formatTokens(b.free)],
    ['Reserved for output', formatTokens(view.reserved)],
  ];
}

/** Escapes text for a Markdown table cell: no markup, no HTML, no column breaks. */
export function escapeMarkdownCell(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (char) => `\\${char}`);
}

/** The status bar tooltip as Markdown (rendered untrusted, without HTML). */
export function budgetTooltipMarkdown(view: BudgetView, now: Date = new Date(), level: BudgetLevel = 'normal', thresholds?: BudgetThresholds): string {
  const unknownWindow = view.windowUntilLoaded ? 'window unknown until loaded' : 'window unknown';
  const headline = view.windowKnown ? `${budgetMark(view)}${formatPercent(view.percent)} of usable` : `${budgetMark(view)}${formatTokens(view.used)} tokens, ${unknownWindow}`;
  const lines = [
    `**Context budget** ${headline} (${escapeMarkdownCell(budgetAccuracyLabel(view))})`,
    ...(level !== 'normal' && thresholds ? ['', `${LEVEL_ICONS[level]} ${budgetLevelWords(level, thresholds)}`] : []),
    ...(view.reportNote ? ['', `$(info) ${escapeMarkdownCell(view.reportNote)}`] : []),
    '',
    '| Part | Tokens |',
    '| --- | ---: |',
    ...budgetRows(view).map(([label, value]) => `| ${label} | ${value} |`),
    '',
    `Model: ${view.model ? escapeMarkdownCell(view.model) : 'none'}  `,
    `Window: ${windowLabel(view)}, usable ${formatTokens(view.usable)}  `,
    `Auto-compaction: ${autoCompactionLabel(view)}  `,
    `Last compaction: ${lastCompactionLabel(view, now)}`,
  ];
  return lines.join('\n');
}

export function lastCompactionLabel(view: Pick<BudgetView, 'lastCompaction'>, now: Date = new Date()): string {
  const last = view.lastCompaction;
  if (!last) return 'none';
  return `${formatTokens(last.tokensBefore)} → ${formatTokens(last.tokensAfter)}, ${formatAgo(last.when, now)}`;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago"; an unparsable time shows as "at an unknown time". */
export function formatAgo(iso: string, now: Date, locale = 'en-US'): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'at an unknown time';
  const minutes = Math.floor((now.getTime() - then) / 60_000);
  if (minutes < 1) return 'just now';
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'always', style: 'short' });
  if (minutes < 60) return relative.format(-minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return relative.format(-hours, 'hour');
  return relative.format(-Math.floor(hours / 24), 'day');
}

/** A date and time for lists (sessions, checkpoints, compactions), in the reader's locale. */
export function formatWhen(iso: string, locale = 'en-US'): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'unknown time';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(then);
}

/** A whole number with the locale's grouping ("128,000"). */
export function formatCount(value: number, locale = 'en-US'): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value);
}

/** On, off, or paused on a branch restored before a compaction (with the way to end the pause). */
export function autoCompactionLabel(view: Pick<BudgetView, 'autoCompaction' | 'autoCompactionPaused'>): string {
  if (!view.autoCompaction) return 'off';
  return view.autoCompactionPaused ? 'paused on this restored branch until you compact or run "Resume Automatic Compaction"' : 'on';
}

/**
 * What a screen reader announces for the status bar item: the level in words first when it is not normal (the
 * colour and icon say it to sighted people), then the figures, used of usable.
 */
export function budgetAccessibilityLabel(view: BudgetView, level: BudgetLevel = 'normal', thresholds?: BudgetThresholds): string {
  const state = level !== 'normal' && thresholds ? `, ${budgetLevelWords(level, thresholds)}` : '';
  const note = view.reportNote ? ` ${view.reportNote}` : '';
  if (!view.windowKnown) return `Context budget${state}: ${formatTokens(view.used)} tokens used, the model's window is unknown${view.windowUntilLoaded ? ' until the server loads it' : ''}, ${budgetAccuracyLabel(view)}.${note}`;
  return (
    `Context budget${state}: ${formatPercent(view.percent)} used, ${formatTokens(view.used)} of ${formatTokens(view.usable)} usable tokens, ` +
    `${budgetAccuracyLabel(view)}. Auto-compaction ${autoCompactionLabel(view)}.${note}`
  );
}
