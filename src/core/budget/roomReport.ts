// Says, before anything is spent, why the context cannot be made to fit: what is too big and what the user can do.
import { contextSpan } from './pathState';
import type { MeasuredContext } from './meter';
import { prunedToolResultIds } from '../context/contextMarkers';
import type { MessageEntry } from '../session/entries';

function tokens(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(1)}k` : String(Math.round(value));
}

function describe(entry: MessageEntry): string {
  switch (entry.type) {
    case 'user':
      return entry.synthetic ? 'an automatic message' : 'a message of yours';
    case 'assistant':
      return entry.toolCalls.length > 0 ? `the model's call to ${entry.toolCalls.map((call) => call.name).join(', ')}` : "the model's reply";
    case 'toolResult':
      return `the output of ${entry.toolName}`;
  }
}

/** The largest parts of the context, biggest first: tool definitions, system prompt and single messages. */
function largestParts(measured: MeasuredContext): string[] {
  const { budget } = measured;
  const pruned = prunedToolResultIds(measured.path);
  const parts: Array<{ label: string; size: number }> = [
    { label: 'the tool definitions', size: budget.breakdown.tools },
    { label: 'the system prompt', size: budget.breakdown.system },
    { label: 'your instruction files (AGENTS.md, .github/copilot-instructions.md)', size: budget.breakdown.instructions },
  ];
  for (const entry of contextSpan(measured.path).messages) {
    const size = (pruned.has(entry.id) ? measured.costs.pruned : measured.costs.full).get(entry.id) ?? 0;
    parts.push({ label: describe(entry), size });
  }
  return parts
    .filter((part) => part.size > 0)
    .sort((a, b) => b.size - a.size)
    .slice(0, 3)
    .map((part) => `${part.label} (${tokens(part.size)})`);
}

/**
 * The message shown instead of sending a prompt that cannot fit. `minimumAfter` is the smallest context a
 * compaction could leave, when there was something to compact at all.
 */
export function explainNoRoom(measured: MeasuredContext, minimumAfter?: number): string {
  const { budget } = measured;
  const need = minimumAfter === undefined ? `the prompt is ${tokens(budget.used)} tokens and nothing older can be summarized` : `even after compacting, the prompt would be at least ${tokens(minimumAfter)} tokens`;
  return (
    `The context does not fit the model's window: ${need}, but the model takes ${tokens(budget.usable)} ` +
    `(a ${tokens(budget.contextWindow)} window less ${tokens(budget.outputReserve)} kept for the reply). ` +
    `Largest parts: ${largestParts(measured).join(', ')}. Nothing was sent and no summary was paid for. ` +
    'You can shorten your message, prune old tool outputs (/prune), offer fewer tools ' +
    '(compactionAgent.tools.includeVsCodeTools), or use a model with a larger window ' +
    '(or set compactionAgent.context.windowTokens if the server allows more than was detected).'
  );
}
