// delegate: hands an exploration sub-task to a sub-agent with its own context; only its final answer comes back.
import type { SubagentLink } from '../session/entries';
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

function footer(delegation: Delegation): string {
  const parts = [`sub-task session ${delegation.link.sessionId}`, `${delegation.steps} model call${delegation.steps === 1 ? '' : 's'}`];
  if (delegation.shortened) parts.push('answer shortened to its cap; the whole of it is in that session');
  if (delegation.ended === 'maxSteps') parts.push('stopped at its step limit, so the answer may be incomplete');
  if (delegation.ended === 'error') parts.push('it ended with an error');
  return `\n\n[${parts.join('; ')}]`;
}

export function delegateTool(delegate: Delegate): Tool {
  return defineTool(
    DELEGATE_TOOL_NAME,
    'Hand a self-contained exploration task (search the codebase, read many files, trace how something works) to a sub-agent. It works in a separate context with read-only tools (read_file, list_dir, find_files, search_text) and returns only its final answer, so the exploration does not fill this conversation. Say exactly what to find out and what the answer should contain. It cannot change files, run commands or delegate further.',
    {
      task: { type: 'string', description: 'What to find out, with everything the sub-agent needs to know (it does not see this conversation).', required: true },
    },
    async (args, context) => {
      if (args.task.trim() === '') return { text: 'delegate: "task" must not be empty.', isError: true };
      const delegation = await delegate(args.task, context);
      if (delegation.ended === 'aborted') return { text: `[cancelled by the user]${footer(delegation)}`, isError: true, subagent: delegation.link };
      const answer = delegation.answer === '' ? '[the sub-agent gave no answer]' : delegation.answer;
      return { text: answer + footer(delegation), isError: delegation.answer === '', subagent: delegation.link };
    },
  );
}
