// A delegated sub-task: its own session log, read-only tools and step budget, run as its own request; only its answer comes back.
import type { AssistantEntry, SubagentLink, Usage } from '../session/entries';
import type { TokenCounter } from '../tokens/tokenCounter';
import { builtinTools, ToolRegistry } from '../tools/toolRegistry';
import type { AgentOptions } from './agentLoop';
import { runAgent } from './agentLoop';
import type { AgentLog } from './agentLog';
import type { RunningRequest } from './sessionEngine';
import type { SummarizeFn } from '../compaction/compaction';
import { CountCache } from '../tokens/countCache';
import type { Delegate } from '../tools/delegateTool';
import { DELEGATE_TOOL_NAME } from '../tools/delegateTool';
import type { Tool } from '../tools/toolTypes';

/** The tools a sub-task gets: reading and searching only (no writes, no commands, no further delegation). */
export const SUBAGENT_TOOLS = ['read_file', 'list_dir', 'find_files', 'search_text'] as const;

/** Most model calls one sub-task may make. */
export const SUBAGENT_MAX_STEPS = 25;

/** The largest answer returned to the parent, in tokens, and the share of the parent's window it may take at most. */
export const SUBAGENT_ANSWER_TOKENS = 2_000;
const SUBAGENT_ANSWER_WINDOW_SHARE = 0.05;

/** Calls, tokens and cost the child's model calls used (added to the parent's usage). */
export type SubagentUsage = Omit<SubagentLink, 'sessionId'>;

export interface SubagentOutcome {
  answer: string;
  /** The answer was cut to the cap (the whole of it stays in the child session). */
  shortened: boolean;
  steps: number;
  usage: SubagentUsage;
  /** How the child's request ended: 'finished', 'aborted', 'error' or 'maxSteps'. */
  ended: string;
}

/** The parent's run options a sub-task shares (model, window, counter, settings, workspace); its summarizer is its own. */
export type SubagentParent = Omit<AgentOptions, 'log' | 'registry' | 'signal' | 'userText' | 'userAttachments' | 'userImages' | 'systemPrompt' | 'maxSteps' | 'review' | 'cache' | 'commandSnapshots' | 'summarize'>;

/** What a sub-task needs from its parent: the model and settings, and its own log and request. */
export interface SubagentRun {
  task: string;
  /** The child's log (a session of its own, linked to the parent's). */
  log: AgentLog;
  /** Starts the child's request on its own session engine (cancelled when `signal` aborts). */
  beginRequest: (signal: AbortSignal) => Promise<RunningRequest>;
  /** The parent's signal: stopping the parent stops the child. */
  signal: AbortSignal;
  /** The parent's run options the child shares (model, window, counter, settings, workspace, summarizer). */
  parent: SubagentParent;
  /** Summarizes the child's own history when its context fills. */
  summarize: SummarizeFn;
  /** Told of each tool call the child makes (the chat shows it as progress). */
  onProgress?: (line: string) => void;
  /** The child's tools; default the read-only built-ins (SUBAGENT_TOOLS). Never include delegate. */
  tools?: readonly Tool[];
}

function systemPrompt(roots: readonly string[]): string {
  return [
    'You are a sub-agent doing one exploration task for another agent, in the workspace folder(s): ' + roots.join(', ') + '.',
    `You can only read and search (${SUBAGENT_TOOLS.join(', ')}); you cannot change files or run commands.`,
    'Work through the task with the tools, then reply with the answer only: concise, concrete (paths, line numbers, names), and complete enough that the other agent need not read the files again.',
    `Your reply is all the other agent sees of your work, and it is cut at about ${SUBAGENT_ANSWER_TOKENS} tokens.`,
  ].join('\n');
}

/** The cap for one answer: SUBAGENT_ANSWER_TOKENS, or less when the parent's window is small. */
export function answerCap(contextWindow: number): number {
  return Math.max(200, Math.min(SUBAGENT_ANSWER_TOKENS, Math.floor(contextWindow * SUBAGENT_ANSWER_WINDOW_SHARE)));
}

/** `text` cut to at most `cap` tokens (by halving the cut until it fits), and whether it was cut. */
export function capAnswer(text: string, cap: number, counter: Pick<TokenCounter, 'countText'>): { text: string; shortened: boolean } {
  if (counter.countText(text) <= cap) return { text, shortened: false };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (counter.countText(text.slice(0, middle)) <= cap) low = middle;
    else high = middle - 1;
  }
  return { text: text.slice(0, low), shortened: true };
}

function addUsage(total: SubagentUsage, usage: Usage | undefined): void {
  if (!usage) return;
  total.calls++;
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
  if (typeof usage.cost === 'number' && Number.isFinite(usage.cost) && usage.cost >= 0) total.cost = (total.cost ?? 0) + usage.cost;
}

function describeCall(name: string, args: string): string {
  const flat = args.replace(/\s+/g, ' ');
  return `${name} ${flat.length > 80 ? `${flat.slice(0, 77)}…` : flat}`;
}

/** Most items of one tool listed in the account of what a sub-task read. */
const ACCOUNT_ITEMS = 30;

/** What one read-only call was about: its path, glob or pattern (as the model gave it, shortened). */
function callSubject(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return args.slice(0, 60);
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const subject = [fields.path, fields.pattern, fields.glob].find((value): value is string => typeof value === 'string') ?? '';
  const shown = subject.length > 80 ? `${subject.slice(0, 77)}…` : subject;
  return typeof fields.pattern === 'string' ? JSON.stringify(shown) : shown;
}

/** A compact account of the calls a sub-task made: per tool, the paths, globs and patterns, each once. */
export function readingAccount(calls: ReadonlyArray<{ name: string; arguments: string }>): string {
  const byTool = new Map<string, string[]>();
  for (const call of calls) {
    const subjects = byTool.get(call.name) ?? [];
    const subject = callSubject(call.arguments);
    if (subject !== '' && !subjects.includes(subject)) subjects.push(subject);
    byTool.set(call.name, subjects);
  }
  return [...byTool.entries()]
    .map(([name, subjects]) => `${name}: ${subjects.slice(0, ACCOUNT_ITEMS).join(', ')}${subjects.length > ACCOUNT_ITEMS ? ` and ${subjects.length - ACCOUNT_ITEMS} more` : ''}`)
    .join('; ');
}

/**
 * The answer of a sub-task that stopped before it wrote one (its call limit, an error): the last thing it wrote in
 * words, and what it read, so the calls it made are not lost to the parent.
 */
function findingsSoFar(ended: string, steps: number, latestText: string, calls: ReadonlyArray<{ name: string; arguments: string }>): string {
  const why = ended === 'maxSteps' ? `reached its limit of ${steps} model calls` : 'ended with an error';
  const parts = [`[The sub-task ${why} before it wrote its answer. What it found so far:]`];
  parts.push(latestText !== '' ? latestText : '(It wrote no findings in words before it stopped.)');
  if (calls.length > 0) parts.push(`What it read (${calls.length} tool call${calls.length === 1 ? '' : 's'}): ${readingAccount(calls)}.`);
  return parts.join('\n\n');
}

/**
 * Runs the sub-task as one request of the child session: its own context (only the task and what its tools
 * return), read-only tools, SUBAGENT_MAX_STEPS model calls. The child's last reply is the answer, capped with the
 * parent's tokenizer; a child that stopped before replying (its call limit, an error) hands back the last thing it
 * wrote and an account of what it read.
 */
export async function runSubagent(run: SubagentRun): Promise<SubagentOutcome> {
  const request = await run.beginRequest(run.signal);
  const usage: SubagentUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  let last: AssistantEntry | undefined;
  let latestText = '';
  const calls: Array<{ name: string; arguments: string }> = [];
  let ended = 'error';
  let steps = 0;
  try {
    // No delegate tool in the child, whatever is passed: a sub-task never starts another one.
    const tools = (run.tools ?? builtinTools().filter((tool) => (SUBAGENT_TOOLS as readonly string[]).includes(tool.definition.function.name))).filter((tool) => tool.definition.function.name !== DELEGATE_TOOL_NAME);
    const events = runAgent({
      ...run.parent,
      log: run.log,
      cache: new CountCache(),
      summarize: run.summarize,
      registry: new ToolRegistry(tools),
      signal: request.signal,
      userText: run.task,
      systemPrompt: systemPrompt(run.parent.workspace.roots()),
      maxSteps: SUBAGENT_MAX_STEPS,
    });
    for await (const event of events) {
      if (event.type === 'toolStart') {
        calls.push({ name: event.call.name, arguments: event.call.arguments });
        run.onProgress?.(describeCall(event.call.name, event.call.arguments));
      }
      if (event.type === 'message') {
        last = event.entry;
        if (event.entry.text.trim() !== '') latestText = event.entry.text.trim();
        if (event.entry.stopReason !== 'aborted' && event.entry.stopReason !== 'error') addUsage(usage, event.entry.usage);
      }
      if (event.type === 'done') {
        ended = event.reason;
        steps = event.steps;
      }
    }
  } finally {
    request.end();
  }
  const finalText = last?.text.trim() ?? '';
  // A sub-task that stopped before answering (its call limit, an error) still hands back what it found.
  const stoppedEarly = (ended === 'maxSteps' || ended === 'error') && (finalText === '' || (last?.toolCalls.length ?? 0) > 0);
  const text = stoppedEarly && (latestText !== '' || calls.length > 0) ? findingsSoFar(ended, steps, latestText, calls) : finalText;
  const capped = capAnswer(text, answerCap(run.parent.contextWindow), run.parent.counter);
  return { answer: capped.text, shortened: capped.shortened, steps, usage, ended };
}

/** A child session made for one sub-task: its log, its engine's beginRequest, and its own summarizer. */
export interface ChildSession {
  id: string;
  log: AgentLog;
  beginRequest: (signal: AbortSignal) => Promise<RunningRequest>;
  summarize: SummarizeFn;
}

/**
 * The `delegate` tool's runner: each call makes a child session (linked to the parent by the tool call id),
 * runs the sub-task in it with the parent's request signal, and returns the capped answer and its usage.
 */
export function subagentDelegate(deps: { createChild: (task: string, toolCallId: string) => Promise<ChildSession>; parent: SubagentParent; onProgress?: (line: string) => void; tools?: readonly Tool[] }): Delegate {
  return async (task, context) => {
    const child = await deps.createChild(task, context.toolCallId);
    const outcome = await runSubagent({
      task,
      log: child.log,
      beginRequest: child.beginRequest,
      signal: context.signal,
      parent: deps.parent,
      summarize: child.summarize,
      ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
      ...(deps.tools ? { tools: deps.tools } : {}),
    });
    return { answer: outcome.answer, shortened: outcome.shortened, steps: outcome.steps, ended: outcome.ended, link: { sessionId: child.id, ...outcome.usage } };
  };
}
