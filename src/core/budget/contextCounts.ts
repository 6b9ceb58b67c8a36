// Counts the context a path sends, by budget part, and finds the last reported usage to anchor the estimate on.
import type { ChatToolDefinition } from '../context/chatMessage';
import { buildContext, type BuildContextOptions } from '../context/contextBuilder';
import type { SessionEntry } from '../session/entries';
import type { EntryCounts } from '../tokens/entryTokens';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { BudgetBreakdown } from './budget';

/** Tokens priming the assistant's reply, once per request. */
const REPLY_PRIMING = 3;

export interface ContextCounts {
  breakdown: BudgetBreakdown;
  /** The last reported prompt size and our count of that same prompt, when still comparable. */
  lastReport: { promptTokens: number; countedPrompt: number } | null;
}

export interface ContextCountOptions extends BuildContextOptions {
  tools?: readonly ChatToolDefinition[];
}

/**
 * Counts exactly the messages buildContext sends, by part. Entry messages come from the per-entry
 * counts (counted once); only the system prompt, summary and synthetic repairs are counted here.
 * The estimate anchors on the newest assistant usage report when nothing was pruned or compacted
 * after it (else the report describes a different prompt and cannot be extended).
 */
export function countContext(
  path: readonly SessionEntry[],
  counts: EntryCounts,
  counter: TokenCounter,
  options: ContextCountOptions = {},
): ContextCounts {
  const built = buildContext(path, options);
  const breakdown: BudgetBreakdown = { system: 0, tools: counter.countTools(options.tools ?? []), summary: 0, messages: REPLY_PRIMING, toolResults: 0 };
  const usageAt = reportsById(path);
  let lastReport: ContextCounts['lastReport'] = null;
  for (const item of built.items) {
    const report = item.entryId !== undefined && item.kind === 'entry' ? usageAt.get(item.entryId) : undefined;
    if (report !== undefined) lastReport = { promptTokens: report, countedPrompt: total(breakdown) };
    const cached = item.entryId === undefined ? undefined : (item.pruned ? counts.pruned : counts.full).get(item.entryId);
    const tokens = item.kind === 'synthetic' || cached === undefined ? counter.countMessage(item.message) : cached;
    if (item.kind === 'system') breakdown.system += tokens;
    else if (item.kind === 'summary') breakdown.summary += tokens;
    else if (item.message.role === 'tool') breakdown.toolResults += tokens;
    else breakdown.messages += tokens;
  }
  if (lastReport && changedAfterLastReport(path)) lastReport = null;
  return { breakdown, lastReport };
}

function total(breakdown: BudgetBreakdown): number {
  return breakdown.system + breakdown.tools + breakdown.summary + breakdown.messages + breakdown.toolResults;
}

function reportsById(path: readonly SessionEntry[]): Map<string, number> {
  const reports = new Map<string, number>();
  for (const entry of path) {
    if (entry.type === 'assistant' && entry.usage && entry.usage.promptTokens > 0) reports.set(entry.id, entry.usage.promptTokens);
  }
  return reports;
}

function changedAfterLastReport(path: readonly SessionEntry[]): boolean {
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index];
    if (entry?.type === 'assistant' && entry.usage && entry.usage.promptTokens > 0) return false;
    if (entry?.type === 'prune' || entry?.type === 'compaction') return true;
  }
  return false;
}
