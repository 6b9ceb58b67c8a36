// `inspect <session.jsonl> [--context-window N] [--max-output N] [--model ID] [--leaf ID] [--json]`: counts, damage, budget and plans, read-only.
import type { Budget } from '../budget/budget';
import { countContext } from '../budget/contextCounts';
import { planReport, type PlanReport, type PlanReportOptions } from '../budget/planReport';
import type { SessionEntry } from '../session/entries';
import { SessionLog } from '../session/sessionLog';
import { countQuarantined } from '../session/quarantine';
import { defaultSettings, type Settings } from '../settings/settings';
import { CountCache } from '../tokens/countCache';
import { countPath } from '../tokens/entryTokens';
import { TokenCounter } from '../tokens/tokenCounter';
import { listOption, positiveIntegerOption, requireFile, UsageError, type ParsedArgs } from './cliArgs';
import type { CliCommand } from './cliDeps';
import { DEFAULT_MODEL } from './contextCommand';
import { buildInspectReport, formatInspectReport } from './inspectReport';
import { formatPlanTable } from './planTable';

/** When the model's window is unknown (settings: 0 = from the model), 128k like the extension. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export interface InspectBudget extends Budget {
  /** Sum of the breakdown: our own count of the context. */
  counted: number;
  /** The usage report `used` is anchored on (used = counted + promptTokens − countedPrompt); null when estimated. */
  anchor: { promptTokens: number; countedPrompt: number } | null;
}

export interface InspectPlan extends Omit<PlanReport, 'budget'> {
  budget: InspectBudget;
}

function planSettings(args: ParsedArgs): { settings: Settings; contextWindow: number; maxOutput: number } {
  const settings = defaultSettings();
  const contextWindow = positiveIntegerOption(args, 'context-window', settings.context.windowTokens || DEFAULT_CONTEXT_WINDOW);
  const maxOutput = positiveIntegerOption(args, 'max-output', settings.context.maxOutputTokens);
  const protectedTools = listOption(args, 'protected-tools');
  if (protectedTools) settings.pruning.protectedTools = protectedTools;
  settings.pruning.minimumTokens = positiveIntegerOption(args, 'prune-minimum', settings.pruning.minimumTokens);
  settings.pruning.protectTokens = positiveIntegerOption(args, 'prune-protect', settings.pruning.protectTokens);
  return { settings, contextWindow, maxOutput };
}

/** planReport plus what `used` was anchored on, so the JSON explains a `used` that differs from the breakdown. */
async function planWithAnchor(path: readonly SessionEntry[], options: Omit<PlanReportOptions, 'counter' | 'cache'>): Promise<InspectPlan> {
  const counter = await TokenCounter.create(options.model);
  const cache = new CountCache();
  const plan = await planReport(path, { ...options, counter, cache });
  // Same counter and cache: every entry is a cache hit, only the framing is counted again.
  const { lastReport } = countContext(path, countPath(path, counter, cache), counter, { systemPrompt: options.systemPrompt, tools: options.tools });
  const { system, tools, summary, messages, toolResults } = plan.budget.breakdown;
  const counted = system + tools + summary + messages + toolResults;
  return { ...plan, budget: { ...plan.budget, counted, anchor: plan.budget.estimated ? null : lastReport } };
}

export const inspectCommand: CliCommand = async (args, deps) => {
  const file = requireFile(args, 'inspect');
  // Bad numbers are reported before the (possibly large) session is read.
  const { settings, contextWindow, maxOutput } = planSettings(args);
  const model = args.options.get('model') ?? DEFAULT_MODEL;
  const { log, warnings, damage } = await SessionLog.open(file, { io: deps.io, readOnly: true });
  const leaf = args.options.get('leaf') ?? log.leafId;
  if (leaf !== null && !log.tree.isNode(leaf)) throw new UsageError(`no entry ${leaf} in ${file}`);
  const quarantined = (await countQuarantined(deps.io, file)) + damage.corruptLines + (damage.tornBytes > 0 ? 1 : 0);
  const report = buildInspectReport({ header: log.header, tree: log.tree, warnings, quarantined });
  const system = args.options.get('system');
  const plan = await planWithAnchor(log.tree.pathTo(leaf), { contextWindow, maxOutput, model, settings, ...(system === undefined ? {} : { systemPrompt: system }) });
  if (args.switches.has('json')) deps.out(JSON.stringify({ ...report, planLeafId: leaf, ...plan }, null, 2));
  else deps.out([formatInspectReport(report), ...(leaf === log.leafId ? [] : [`planned at entry ${leaf ?? '(empty)'}`]), formatPlanTable(plan)].join('\n'));
  return 0;
};
