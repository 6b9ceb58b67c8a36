// Readable form of the budget, prune plan and compaction plan that `inspect` prints without --json.
import type { InspectPlan } from './inspectCommand';

function row(label: string, tokens: number, note = ''): string {
  return `  ${label.padEnd(16)}${String(tokens).padStart(9)}${note ? `  ${note}` : ''}`;
}

function budgetRows(report: InspectPlan): string[] {
  const { budget } = report;
  const { breakdown } = budget;
  const counting = budget.exact ? `exact ${report.encoding} counts` : `${report.encoding} estimate (not ${report.model}'s own tokenizer)`;
  return [
    `budget for ${report.model} (${counting}):`,
    row('context window', budget.contextWindow),
    row('output reserve', budget.outputReserve),
    row('usable', budget.usable),
    row('system', breakdown.system),
    row('tools', breakdown.tools),
    row('summary', breakdown.summary),
    row('messages', breakdown.messages),
    row('tool results', breakdown.toolResults),
    row('counted', budget.counted),
    budget.anchor
      ? row('used', budget.used, `last reported prompt ${budget.anchor.promptTokens} (we counted ${budget.anchor.countedPrompt}) + what came after`)
      : row('used', budget.used, 'our count (no usage report to anchor on)'),
    `  ${budget.percent} % of usable, ${budget.free} free`,
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
