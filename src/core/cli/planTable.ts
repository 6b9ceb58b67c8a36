// Readable form of the budget, prune plan and compaction plan that `inspect` prints without --json.
import type { PlanReport as InspectPlan } from './planReport';

function row(label: string, tokens: number, note = ''): string {
  return `  ${label.padEnd(16)}${String(tokens).padStart(9)}${note ? `  ${note}` : ''}`;
}

function usedNote(report: InspectPlan): string {
  const { budget } = report;
  if (budget.basis === 'report') return 'the last reported prompt + what came after';
  return budget.basis === 'calibrated' ? 'our count, calibrated' : 'our count (no usage report to anchor on)';
}

function budgetRows(report: InspectPlan): string[] {
  const { budget, thresholds } = report;
  const { breakdown } = budget;
  const counting = budget.exact ? `exact ${report.encoding} counts` : `${report.encoding} estimate (not ${report.model}'s own tokenizer)`;
  return [
    `budget for ${report.model} (${counting}):`,
    row('context window', budget.contextWindow, `from ${report.window.source}`),
    row('output reserve', budget.outputReserve),
    row('usable', budget.usable),
    row('system', breakdown.system),
    ...(breakdown.instructions > 0 ? [row('instructions', breakdown.instructions)] : []),
    row('tools', breakdown.tools),
    row('summary', breakdown.summary),
    row('messages', breakdown.messages),
    row('tool results', breakdown.toolResults),
    row('counted', report.counted, 'our raw count of the prompt'),
    row('used', budget.used, usedNote(report)),
    ...(budget.reportNote ? [`  ${budget.reportNote}`] : []),
    `  ${budget.percent} % of usable, ${budget.free} free`,
    `  thresholds: keep ${thresholds.keepRecent}, prune protect ${thresholds.pruneProtect} / minimum ${thresholds.pruneMinimum} above ${thresholds.pruneAtPercent} %, summary ${thresholds.summaryTokens}, tool output ${thresholds.toolOutputChars} chars`,
    `decision before the next call: ${report.decision}`,
  ];
}

function planRows(report: InspectPlan): string[] {
  const { prune, compaction } = report;
  const lines = [
    prune.entryIds.length > 0
      ? `prune: ${prune.entryIds.length} old tool output(s), frees ${prune.tokensFreed} tokens`
      : 'prune: nothing worth pruning',
  ];
  if (!compaction.canHelp) lines.push(`compaction: CANNOT HELP, the smallest context it could leave is ${compaction.minimumAfter} tokens`);
  if (compaction.firstKeptEntryId === null) lines.push('compaction: nothing to compact');
  else {
    const prefix = compaction.turnPrefixEntryIds.length > 0 ? ` (+${compaction.turnPrefixEntryIds.length} of the current turn)` : '';
    lines.push(
      `compaction${compaction.needed ? ' NEEDED' : ' (not needed yet)'}: summarize ${compaction.summarizeEntryIds.length} entries${prefix}, ` +
        `${compaction.tokensToSummarize} tokens; keep ${compaction.tokensKept} tokens from ${compaction.firstKeptEntryId}`,
    );
  }
  return lines;
}

export function formatPlanTable(report: InspectPlan): string {
  return [...budgetRows(report), ...planRows(report)].join('\n');
}
