// `inspect <session.jsonl> [--context-window N] [--max-output N] [--model ID] [--leaf ID] [--json]`: counts, damage, budget and plans, read-only.
import { planReport, type PlanReport } from './planReport';
import { SessionLog } from '../session/sessionLog';
import { countQuarantined } from '../session/quarantine';
import { defaultSettings, type Settings } from '../settings/settings';
import { CountCache } from '../tokens/countCache';
import { TokenCounter } from '../tokens/tokenCounter';
import { listOption, positiveIntegerOption, requireFile, UsageError, type ParsedArgs } from './cliArgs';
import type { CliCommand } from './cliDeps';
import { DEFAULT_MODEL } from './contextCommand';
import { buildInspectReport, formatInspectReport } from './inspectReport';
import { formatPlanTable } from './planTable';

/** When the model's window is unknown (settings: 0 = from the model), 128k like the extension. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The windows every `inspect --json` also plans at: an 8k local model up to a 1M hosted one. */
export const PLAN_WINDOWS = [8_192, 16_384, 32_768, 131_072, 1_048_576] as const;


function planSettings(args: ParsedArgs): { settings: Settings; contextWindow: number; windowSource: string } {
  const settings = defaultSettings();
  const explicit = args.options.has('context-window');
  const contextWindow = positiveIntegerOption(args, 'context-window', DEFAULT_CONTEXT_WINDOW);
  settings.context.maxOutputTokens = positiveIntegerOption(args, 'max-output', 0) || settings.context.maxOutputTokens;
  const protectedTools = listOption(args, 'protected-tools');
  if (protectedTools) settings.pruning.protectedTools = protectedTools;
  settings.pruning.minimumTokens = positiveIntegerOption(args, 'prune-minimum', 0) || settings.pruning.minimumTokens;
  settings.pruning.protectTokens = positiveIntegerOption(args, 'prune-protect', 0) || settings.pruning.protectTokens;
  return { settings, contextWindow, windowSource: explicit ? 'option' : 'default' };
}

export const inspectCommand: CliCommand = {
  options: {
    'context-window': 'string',
    'max-output': 'string',
    model: 'string',
    leaf: 'string',
    system: 'string',
    'protected-tools': 'string',
    'prune-minimum': 'string',
    'prune-protect': 'string',
    json: 'boolean',
  },
  run: async (args, deps) => {
    const file = requireFile(args, 'inspect');
    // Bad numbers are reported before the (possibly large) session is read.
    const { settings, contextWindow, windowSource } = planSettings(args);
    const model = args.options.get('model') ?? DEFAULT_MODEL;
    const { log, warnings, damage } = await SessionLog.open(file, { io: deps.io, readOnly: true });
    const leaf = args.options.get('leaf') ?? log.leafId;
    if (leaf !== null && !log.tree.isNode(leaf)) throw new UsageError(`no entry ${leaf} in ${file}`);
    const quarantined = (await countQuarantined(deps.io, file)) + damage.corruptLines + (damage.tornBytes > 0 ? 1 : 0);
    const report = buildInspectReport({ header: log.header, tree: log.tree, warnings, quarantined });
    const system = args.options.get('system');
    const path = log.tree.pathTo(leaf);
    // One counter and cache for every window: entries are tokenized once, only the plans differ.
    const shared = { model, settings, counter: await TokenCounter.create(model), cache: new CountCache(), ...(system === undefined ? {} : { systemPrompt: system }) };
    const plan = await planReport(path, { ...shared, contextWindow, windowSource });
    if (args.switches.has('json')) {
      const plansByWindow: Record<string, PlanReport> = {};
      for (const window of PLAN_WINDOWS) plansByWindow[String(window)] = await planReport(path, { ...shared, contextWindow: window, windowSource: 'option' });
      deps.out(JSON.stringify({ ...report, planLeafId: leaf, ...plan, plansByWindow }, null, 2));
    }
    else deps.out([formatInspectReport(report), ...(leaf === log.leafId ? [] : [`planned at entry ${leaf ?? '(empty)'}`]), formatPlanTable(plan)].join('\n'));
    return 0;
  },
};
