// The one owner of "how full": counts a path's context, converts it to the endpoint's units and measures it against the window.
import type { ChatMessage, ChatToolDefinition } from '../context/chatMessage';
import type { SessionEntry } from '../session/entries';
import type { Settings } from '../settings/settings';
import type { CountCache } from '../tokens/countCache';
import type { EntryCounts } from '../tokens/entryTokens';
import { countPath } from '../tokens/entryTokens';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { Budget, BudgetBasis, BudgetBreakdown } from './budget';
import { sumBreakdown } from './budget';
import type { Calibration } from './calibration';
import { judgeReport } from './calibration';
import { countContext, REPLY_PRIMING } from './contextCounts';
import type { EntryCosts, PrunePlan } from './prunePlan';
import { planPruneIncremental } from './pruneIndex';

export type { EntryCosts } from './prunePlan';
import { thresholdsFor, type Thresholds } from './thresholds';

/** Everything needed to measure a context; shared by the loop, the compaction runner, the prune runner and the UI. */
export interface CountingDeps {
  counter: TokenCounter;
  cache: CountCache;
  calibration?: Calibration;
  settings: Settings;
  contextWindow: number;
  /** False when no source told us the window and `contextWindow` is an assumption (default: known). */
  windowKnown?: boolean;
  /** The most output tokens the model accepts, when its listing says so. */
  maxOutputTokens?: number;
  /** The system prompt every call starts with (none for a bare session, e.g. the CLI without --system). */
  systemPrompt?: string;
  systemRole: 'system' | 'developer';
  tools: readonly ChatToolDefinition[];
}


export interface MeasuredContext {
  path: SessionEntry[];
  /** Our raw per-entry counts (the cache's units). */
  counts: EntryCounts;
  /** The same entries in the endpoint's units: what every planner compares with the budget. */
  costs: EntryCosts;
  thresholds: Thresholds;
  budget: Budget;
  /** Our raw count of the whole prompt, and of its two calibrated parts (what a usage report is compared with). */
  countedPrompt: number;
  raw: { content: number; tools: number };
  /** The usage report `used` rests on and our raw count of that same prompt; null when `used` is our count. */
  anchor: { promptTokens: number; countedPrompt: number } | null;
  prune: PrunePlan;
}

/** A server may render tool definitions as raw JSON schemas (most chat templates do): their JSON text, counted. */
const jsonToolCounts = new WeakMap<readonly ChatToolDefinition[], number>();

function countToolsAsJson(counter: TokenCounter, tools: readonly ChatToolDefinition[]): number {
  let tokens = jsonToolCounts.get(tools);
  if (tokens === undefined) {
    tokens = tools.length === 0 ? 0 : counter.countText(JSON.stringify(tools.map((tool) => tool.function)));
    jsonToolCounts.set(tools, tokens);
  }
  return tokens;
}

/**
 * The tool definitions in the endpoint's units. OpenAI renders them compactly and our count is exact;
 * other servers are unknown until they report, so the larger of the two renderings is assumed (a first
 * request to a 16k server must not be refused because its template spelled the schemas out).
 */
export function toolsInEndpointUnits(counter: TokenCounter, tools: readonly ChatToolDefinition[], calibration?: Calibration): number {
  const raw = counter.countTools(tools);
  const ratio = calibration?.toolsRatio;
  if (ratio !== undefined) return Math.round(raw * ratio);
  if (counter.exact) return raw;
  return Math.max(raw, countToolsAsJson(counter, tools));
}

function scaledCosts(counts: EntryCounts, ratio: number): EntryCosts {
  if (ratio === 1) return counts;
  const scale = (tokens: number | undefined): number | undefined => (tokens === undefined ? undefined : Math.round(tokens * ratio));
  return { full: { get: (id) => scale(counts.full.get(id)) }, pruned: { get: (id) => scale(counts.pruned.get(id)) } };
}

/** The raw parts in endpoint units; when `used` rests on a report, spread so the parts still sum to it. */
function endpointBreakdown(raw: BudgetBreakdown, ratio: number, tools: number, used: number): BudgetBreakdown {
  const parts: BudgetBreakdown = {
    system: Math.round(raw.system * ratio),
    instructions: Math.round(raw.instructions * ratio),
    tools,
    summary: Math.round(raw.summary * ratio),
    messages: Math.round(raw.messages * ratio),
    toolResults: Math.round(raw.toolResults * ratio),
  };
  const content = parts.system + parts.instructions + parts.summary + parts.messages + parts.toolResults;
  const target = used - tools;
  if (content <= 0 || target === content) return parts;
  const factor = Math.max(0, target) / content;
  const scale = (tokens: number): number => Math.round(tokens * factor);
  const spread = { ...parts, system: scale(parts.system), instructions: scale(parts.instructions), summary: scale(parts.summary), toolResults: scale(parts.toolResults) };
  spread.messages = Math.max(0, target - spread.system - spread.instructions - spread.summary - spread.toolResults);
  return spread;
}

/**
 * used = the endpoint's report of the newest prompt on this path + the calibrated count of what was
 * appended since (near-exact: only the new tail is estimated), when that report is believable and
 * nothing was pruned or compacted after it; else our calibrated count of the whole prompt.
 */
export function measureContext(path: SessionEntry[], deps: CountingDeps): MeasuredContext {
  const { counter, calibration } = deps;
  const thresholds = thresholdsFor(deps.contextWindow, deps.settings);
  const counts = countPath(path, counter, deps.cache);
  const counted = countContext(path, counts, counter, { systemPrompt: deps.systemPrompt, systemRole: deps.systemRole, tools: deps.tools });
  const raw = counted.breakdown;
  const countedPrompt = sumBreakdown(raw);
  const ratio = calibration?.contentRatio ?? 1;
  const tools = toolsInEndpointUnits(counter, deps.tools, calibration);
  const content = countedPrompt - raw.tools;
  const windowKnown = deps.windowKnown ?? true;
  const report = counted.lastReport;
  const verdict = report ? judgeReport(report.promptTokens, report.countedPrompt, windowKnown ? thresholds.window : undefined) : undefined;
  let basis: BudgetBasis = calibration?.calibrated ? 'calibrated' : 'estimate';
  let used = Math.round(content * ratio) + tools;
  const anchored = report && verdict?.believed && countedPrompt >= report.countedPrompt ? report : null;
  if (anchored) {
    used = anchored.promptTokens + Math.round((countedPrompt - anchored.countedPrompt) * ratio);
    basis = 'report';
  }
  const breakdown = endpointBreakdown(raw, ratio, tools, used);
  const budget: Budget = {
    contextWindow: thresholds.window,
    windowKnown,
    outputReserve: thresholds.outputReserve,
    usable: thresholds.usable,
    used,
    basis,
    estimated: basis === 'estimate',
    exact: counter.exact,
    breakdown,
    free: Math.max(0, thresholds.usable - used),
    percent: thresholds.usable > 0 ? Math.round((used / thresholds.usable) * 1000) / 10 : 100,
    ...(verdict && !verdict.believed ? { reportNote: `The endpoint's last usage report was not believed: ${verdict.reason}.` } : {}),
  };
  const costs = scaledCosts(counts, ratio);
  const pruning = { ...deps.settings.pruning, protectTokens: thresholds.pruneProtect, minimumTokens: thresholds.pruneMinimum };
  return { path, counts, costs, thresholds, budget, countedPrompt, raw: { content, tools: raw.tools }, anchor: anchored, prune: planPruneIncremental(path, counts, costs, ratio, pruning) };
}

/** Output never requested beyond this unless the user asks for more (some providers check credit against it). */
const AUTO_OUTPUT_CAP = 16_384;
const MIN_OUTPUT = 256;

/**
 * The window a reply is sized for while no source told us the real one: a small server's. text-generation-webui
 * keeps its truncation length (8,192 by default) less max_tokens for the prompt and fails when that is negative
 * (modules/text_generation.py get_max_prompt_length), so a reply sized for the assumed 128k broke it.
 */
export const SMALL_SERVER_WINDOW = 8192;

/**
 * max_tokens for the next call: as much as fits after the prompt (with a margin for our estimate's error,
 * wider before any report), at most the user's or model's limit, and at least the reserve's worth when the
 * prompt stayed inside the usable budget. Servers refuse prompt + max_tokens > window, so a fixed request
 * (8,000 at a 16k window) made the first message of a small model fail. While the window is unknown, the reply
 * is sized as for an 8k server (raised as soon as the window is known).
 */
export function requestOutputTokens(measured: MeasuredContext, deps: Pick<CountingDeps, 'settings' | 'maxOutputTokens'>): number {
  const { budget } = measured;
  const window = budget.windowKnown ? budget.contextWindow : SMALL_SERVER_WINDOW;
  const thresholds = budget.windowKnown ? measured.thresholds : thresholdsFor(SMALL_SERVER_WINDOW, deps.settings);
  const margin = countMargin(!budget.estimated, budget.exact);
  const room = window - Math.ceil(budget.used * (1 + margin)) - 16;
  const setting = deps.settings.context.maxOutputTokens;
  const cap = Math.min(setting > 0 ? setting : Math.max(thresholds.outputReserve, AUTO_OUTPUT_CAP), deps.maxOutputTokens ?? Number.POSITIVE_INFINITY);
  // While the meter says the prompt fits, the reserve is what was promised for the reply: the estimate's
  // margin may only take what lies beyond it (a page-long write_file at 8k must not be cut at 256 tokens).
  const floor = budget.used <= budget.usable ? Math.min(cap, thresholds.outputReserve) : MIN_OUTPUT;
  return Math.max(floor, MIN_OUTPUT, Math.min(cap, room));
}

/**
 * Our count's possible error: small once a usage report calibrated it, a few % for OpenAI's own tokenizer, and up
 * to a third for an unknown tokenizer (1.25× is common), which a refusal at the first message would show.
 */
export function countMargin(calibrated: boolean, exact: boolean): number {
  return calibrated ? 0.03 : exact ? 0.05 : 0.35;
}

/** A request that is not a session path (the summary request), measured like every call. */
export interface RequestMeasure {
  /** Our count of its messages with the reply's priming, as countContext counts a call. */
  tokens: number;
  /** The most of our count a request may hold so the endpoint's count plus the reply stays within the window. */
  room: number;
  fits: boolean;
}

/** The prompt room of a request to `window` that reserves `maxOutput` for the reply, in our count (see countMargin). */
export function requestRoom(counter: TokenCounter, window: number, maxOutput: number): number {
  return Math.max(0, Math.floor((window - maxOutput - REQUEST_SLACK) / (1 + countMargin(false, counter.exact))));
}

/** Tokens a server adds around a request beyond the messages (its chat template's end, say). */
const REQUEST_SLACK = 16;

/**
 * Measures a request's messages with the counter every call is measured with; `fits` says whether it can be
 * sent to `window` with `maxOutput` tokens asked for the reply. The summary request goes to the summarizing
 * model, whose reports never calibrated this counter: the uncalibrated margin applies.
 */
export function measureRequest(messages: readonly ChatMessage[], counter: TokenCounter, window: number, maxOutput: number): RequestMeasure {
  let tokens = REPLY_PRIMING;
  for (const message of messages) tokens += counter.countMessage(message);
  const room = requestRoom(counter, window, maxOutput);
  return { tokens, room, fits: tokens <= room };
}
