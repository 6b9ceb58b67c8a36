// UI-tier turns that change a workspace file, so a checkpoint restore has something to put back.
import type { ScriptStep } from '../scriptedSteps';
import { reply, toolCalls } from '../scriptedSteps';
import { DEMO_LABEL } from './codingSession';

/** A request containing this word creates CHECKPOINT_FILE; one that also says "edit" changes it. */
export const CHECKPOINT_TRIGGER = 'checkpoint';
export const CHECKPOINT_FILE = 'notes/checkpoint-demo.md';
export const CHECKPOINT_FIRST = '# Release notes\n\n- first draft\n';
export const CHECKPOINT_SECOND = '# Release notes\n\n- second draft, rewritten by the agent\n';

/** Step 0 writes (or edits) the file; step 1 answers. */
export function checkpointTurn(userText: string, steps: number, callId: string): ScriptStep {
  const edit = /\bedit\b/i.test(userText);
  if (steps > 0) return reply(`${DEMO_LABEL} ${edit ? 'Edited' : 'Created'} ${CHECKPOINT_FILE}.`);
  if (edit) {
    return toolCalls([{ id: `${callId}_edit`, name: 'edit_file', arguments: { path: CHECKPOINT_FILE, oldText: '- first draft', newText: '- second draft, rewritten by the agent' } }], {
      text: `${DEMO_LABEL} Rewriting the draft.`,
    });
  }
  return toolCalls([{ id: `${callId}_write`, name: 'write_file', arguments: { path: CHECKPOINT_FILE, content: CHECKPOINT_FIRST } }], { text: `${DEMO_LABEL} Writing the first draft.` });
}
