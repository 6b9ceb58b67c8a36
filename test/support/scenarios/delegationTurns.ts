// UI-tier scenario turn: the agent delegates an exploration to a sub-task, whose child session reads a file and answers.
import type { ScriptStep } from '../scriptedSteps';
import { reply, toolCalls } from '../scriptedSteps';
import { DEMO_LABEL } from './codingSession';

/** A user message containing this phrase gets a turn that delegates; the sub-task's own request starts with DELEGATED_TASK. */
export const DELEGATE_TRIGGER = 'explore with a sub-task';
export const DELEGATED_TASK = 'Sub-task probe: find where slugify joins words and with which character.';
export const DELEGATED_ANSWER = 'slugify joins the words with "-" in src/slugify.mjs.';
export const DELEGATE_FINAL = 'The sub-task found it: words are joined with dashes.';

/** The parent's steps: one delegate call, then the answer. */
export function delegatingTurn(steps: number, callId: string): ScriptStep {
  if (steps === 0) return toolCalls([{ id: `${callId}_delegate`, name: 'delegate', arguments: { task: DELEGATED_TASK } }], { text: `${DEMO_LABEL} Handing the exploration to a sub-task.` });
  return reply(`${DEMO_LABEL} ${DELEGATE_FINAL}`);
}

/** The sub-task's steps: read the module, then the answer (all the parent sees). */
export function delegatedTurn(steps: number, callId: string): ScriptStep {
  if (steps === 0) return toolCalls([{ id: `${callId}_read`, name: 'read_file', arguments: { path: 'src/slugify.mjs' } }]);
  return reply(DELEGATED_ANSWER);
}
