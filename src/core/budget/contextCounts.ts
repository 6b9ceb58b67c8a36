// Counts the context a path sends, by budget part, and finds the last reported usage to anchor the estimate on.
import { splitInstructions } from '../context/instructionFiles';
import type { ChatMessage, ChatToolDefinition } from '../context/chatMessage';
import { buildContext, carriedRequest, type BuildContextOptions } from '../context/contextBuilder';
import type { SessionEntry } from '../session/entries';
import { sameTokenizer } from '../tokens/encoding';
import type { EntryCounts } from '../tokens/entryTokens';
import { PathCountMap } from '../tokens/pathCounts';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { BudgetBreakdown } from './budget';
import { addItems, changedBefore, extendContext, rememberContext, type BodyState } from './contextMemo';

/** Tokens priming the assistant's reply, once per request. */
export const REPLY_PRIMING = 3;

export interface ContextCounts {
  breakdown: BudgetBreakdown;
  /** The last reported prompt size and our count of that same prompt, when still comparable. */
  lastReport: { promptTokens: number; countedPrompt: number } | null;
}

export interface ContextCountOptions extends BuildContextOptions {
  tools?: readonly ChatToolDefinition[];
}

/**
 * A usage report anchors our count only when it is in our tokenizer's units: a report from another
 * model family (a session imported from Claude, counted for gpt-4o) would mix two tokenizers in
 * `used`, so it is ignored. Reports without a model (older entries) are trusted; copies never are.
 */
function reportOf(entry: SessionEntry | undefined, counter: TokenCounter): number | undefined {
  if (entry?.type !== 'assistant' || !entry.usage || entry.usage.promptTokens <= 0) return undefined;
  // A copy made by an undo carries the report of the prompt its original was answered from (a compacted
  // one): it describes another context and must never anchor this one.
  if (entry.copyOf !== undefined) return undefined;
  if (entry.model !== undefined && !sameUnits(entry.model, counter.modelId)) return undefined;
  return entry.usage.promptTokens;
}

/** sameTokenizer's answers by model pair: every assistant entry names its model, and a session uses a handful. */
const sameUnitsMemo = new Map<string, boolean>();

function sameUnits(model: string, counterModel: string): boolean {
  const key = `${model}\u0000${counterModel}`;
  let same = sameUnitsMemo.get(key);
  if (same === undefined) {
    if (sameUnitsMemo.size >= 256) sameUnitsMemo.clear();
    same = sameTokenizer(model, counterModel);
    sameUnitsMemo.set(key, same);
  }
  return same;
}

/** The system message's tokens: the base prompt and the user's instruction files (its last section), apart. */
interface SystemCount {
  system: number;
  instructions: number;
}

/** The system prompt repeats on every step: counted once per counter and text. */
const systemCounts = new WeakMap<TokenCounter, Map<string, SystemCount>>();

function countSystem(counter: TokenCounter, options: BuildContextOptions): SystemCount {
  if (options.systemPrompt === undefined) return { system: 0, instructions: 0 };
  const message: ChatMessage = { role: options.systemRole ?? 'system', content: options.systemPrompt };
  const key = `${message.role}\u0000${options.systemPrompt}`;
  let known = systemCounts.get(counter);
  if (!known) {
    known = new Map();
    systemCounts.set(counter, known);
  }
  let counted = known.get(key);
  if (counted === undefined) {
    if (known.size >= 8) known.clear();
    const whole = counter.countMessage(message);
    const { instructions } = splitInstructions(options.systemPrompt);
    // The section's own tokens, never more than the message: the parts still add up to the whole.
    const section = instructions === '' ? 0 : Math.min(whole, counter.countText(instructions));
    counted = { system: whole - section, instructions: section };
    known.set(key, counted);
  }
  return counted;
}

function finish(state: BodyState, system: SystemCount, tools: number, changed: boolean): ContextCounts {
  const fixed = system.system + system.instructions + tools + REPLY_PRIMING;
  const breakdown: BudgetBreakdown = {
    system: system.system,
    instructions: system.instructions,
    tools,
    summary: state.summary,
    messages: REPLY_PRIMING + state.messages,
    toolResults: state.toolResults,
  };
  const lastReport = state.report && !changed ? { promptTokens: state.report.promptTokens, countedPrompt: fixed + state.report.before } : null;
  return { breakdown, lastReport };
}

/**
 * Counts exactly the messages buildContext sends, by part. Entry messages come from the per-entry
 * counts (counted once); only the system prompt, summary and synthetic repairs are counted here.
 * The estimate anchors on the newest assistant usage report when nothing was pruned or compacted
 * after it (else the report describes a different prompt and cannot be extended). When `counts`
 * come from countPath for this same path, the settled part of the previous turn's context is reused
 * and only the entries since are repaired and summed (a prune, pin or compaction rebuilds it).
 */
export function countContext(
  path: readonly SessionEntry[],
  counts: EntryCounts,
  counter: TokenCounter,
  options: ContextCountOptions = {},
): ContextCounts {
  const system = countSystem(counter, options);
  const tools = counter.countTools(options.tools ?? []);
  const isReport = (entry: SessionEntry): boolean => reportOf(entry, counter) !== undefined;
  const view = counts.full instanceof PathCountMap && counts.full.isViewOf(path) ? counts.full : undefined;
  const carried = carriedRequest(path)?.id ?? null;
  if (view) {
    const reports = (entryId: string): number | undefined => reportOf(view.record(entryId)?.entry, counter);
    const extended = extendContext(view, counts, counter, reports, isReport, carried);
    if (extended) return finish(extended.state, system, tools, extended.changed);
  }
  const byId = view ? undefined : new Map(path.map((entry) => [entry.id, entry]));
  const reports = (entryId: string): number | undefined => reportOf(view ? view.record(entryId)?.entry : byId?.get(entryId), counter);
  const items = buildContext(path).items;
  const done = view ? rememberContext(view, items, counts, counter, reports, isReport, carried) : { state: { summary: 0, messages: 0, toolResults: 0, report: null }, item: 0 };
  const state: BodyState = { ...done.state };
  addItems(state, done.item === 0 ? items : items.slice(done.item), counts, counter, reports);
  return finish(state, system, tools, changedBefore(path, path.length, isReport));
}
