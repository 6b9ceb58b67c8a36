// delegate: hands an exploration sub-task to a sub-agent with its own context; only its final answer comes back, within caps per reply and per request.
import type { SessionEntry, SubagentLink } from '../session/entries';
import { defineTool } from './defineTool';
import type { Tool, ToolContext } from './toolTypes';

/** What one delegation produced: the (capped) answer and the child session it ran in. */
export interface Delegation {
  answer: string;
  shortened: boolean;
  steps: number;
  /** How the child's request ended: 'finished', 'aborted', 'error' or 'maxSteps'. */
  ended: string;
  link: SubagentLink;
}

/** Runs a sub-task in a child session (the VS Code side and tests supply it). */
export type Delegate = (task: string, context: ToolContext) => Promise<Delegation>;

export const DELEGATE_TOOL_NAME = 'delegate';

/** How many sub-tasks may start: per reply of the model, and per request over all its replies (compactionAgent.tools.delegateMax*). */
export interface DelegationCaps {
  perReply: number;
  perRequest: number;
}

/** The defaults of the settings: each sub-task may make up to 25 model calls, so 8 per request bounds one request's sub-tasks at 200 calls. */
export const DEFAULT_DELEGATION_CAPS: DelegationCaps = { perReply: 3, perRequest: 8 };

function footer(delegation: Delegation): string {
  const parts = [`sub-task session ${delegation.link.sessionId}`, `${delegation.steps} model call${delegation.steps === 1 ? '' : 's'}`];
  if (delegation.shortened) parts.push('answer shortened to its cap; the whole of it is in that session');
  if (delegation.ended === 'maxSteps') parts.push('stopped at its call limit before it answered: this is what it found so far, so it may be incomplete');
  if (delegation.ended === 'error') parts.push('it ended with an error: this is what it found so far');
  return `\n\n[${parts.join('; ')}]`;
}

/** The place of this call among the delegate calls of its reply (0 for the first): by position, as ids repeat. */
function positionInReply(context: ToolContext): number | undefined {
  const reply = context.reply;
  if (!reply) return undefined;
  let before = 0;
  for (let index = 0; index < reply.index && index < reply.calls.length; index++) if (reply.calls[index]?.name === DELEGATE_TOOL_NAME) before++;
  return before;
}

/** The request this call belongs to: the person's message that started it (the last one on the path). */
function requestOf(context: ToolContext): string {
  const path: readonly SessionEntry[] = context.session?.path() ?? [];
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index] as SessionEntry;
    if (entry.type === 'user' && entry.synthetic !== true) return entry.id;
  }
  return '';
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The delegate tool. It counts the sub-tasks it starts in each request (by the person's message that started it) and
 * in each reply (by the reply's list of calls, never by call ids, which servers repeat); a call above either cap
 * starts nothing and tells the model why and what to do instead.
 */
export function delegateTool(delegate: Delegate, caps: DelegationCaps | (() => DelegationCaps) = DEFAULT_DELEGATION_CAPS): Tool {
  const startedIn = new Map<string, number>();
  const startedInReply = new WeakMap<readonly unknown[], number>();
  return defineTool(
    DELEGATE_TOOL_NAME,
    'Hand a self-contained exploration task (search the codebase, read many files, trace how something works) to a sub-agent. It works in a separate context with read-only tools (read_file, list_dir, find_files, search_text) and returns only its final answer, so the exploration does not fill this conversation. Say exactly what to find out and what the answer should contain. It cannot change files, run commands or delegate further. Only a few sub-tasks may run per reply and per request.',
    {
      task: { type: 'string', description: 'What to find out, with everything the sub-agent needs to know (it does not see this conversation).', required: true },
    },
    async (args, context) => {
      if (args.task.trim() === '') return { text: 'delegate: "task" must not be empty.', isError: true };
      const { perReply, perRequest } = typeof caps === 'function' ? caps() : caps;
      if (perReply === 0 || perRequest === 0) return { text: 'delegate: not run, sub-tasks are turned off in this editor (compactionAgent.tools.delegateMaxPerReply / delegateMaxPerRequest). Do the task yourself with the read-only tools.', isError: true };
      const reply = context.reply?.calls;
      const startedHere = reply ? (startedInReply.get(reply) ?? 0) : 0;
      if (startedHere >= perReply) {
        const position = positionInReply(context) ?? startedHere;
        return { text: `delegate: not run. One reply may start at most ${plural(perReply, 'sub-task')} (compactionAgent.tools.delegateMaxPerReply); this was delegate call ${position + 1} of that reply. Use the answers of the sub-tasks that ran, then delegate again in a later reply if still needed, or do this part yourself with the read-only tools.`, isError: true };
      }
      const request = requestOf(context);
      const started = startedIn.get(request) ?? 0;
      if (started >= perRequest) {
        return { text: `delegate: not run. This request has already run ${plural(started, 'sub-task')}, the most one request may (compactionAgent.tools.delegateMaxPerRequest). Go on without sub-tasks: read and search yourself, or answer with what you have.`, isError: true };
      }
      startedIn.set(request, started + 1);
      if (reply) startedInReply.set(reply, startedHere + 1);
      const delegation = await delegate(args.task, context);
      if (delegation.ended === 'aborted') return { text: `[cancelled by the user]${footer(delegation)}`, isError: true, subagent: delegation.link };
      const answer = delegation.answer === '' ? '[the sub-agent gave no answer and read nothing]' : delegation.answer;
      return { text: answer + footer(delegation), isError: delegation.answer === '', subagent: delegation.link };
    },
  );
}
