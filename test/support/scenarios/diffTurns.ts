// UI-tier turns that propose an edit to src/slugify.mjs, so the diff confirmation can be accepted or rejected.
import type { RecordedRequest } from '../scriptedEndpoint';
import type { ScriptStep } from '../scriptedSteps';
import { reply, toolCalls } from '../scriptedSteps';
import { DEMO_LABEL } from './codingSession';

/** A request containing this phrase proposes the slug fix. */
export const DIFF_TRIGGER = 'fix the trailing dash';
export const DIFF_FILE = 'src/slugify.mjs';
export const DIFF_OLD = ".replace(/^-+/, '');";
export const DIFF_NEW = ".replace(/^-+|-+$/g, '');";

function lastToolOutput(request: RecordedRequest): string {
  const messages = (request.body as { messages?: Array<{ role: string; content?: unknown }> }).messages ?? [];
  const tool = [...messages].reverse().find((message) => message.role === 'tool');
  return typeof tool?.content === 'string' ? tool.content : '';
}

/** Step 0 proposes the edit; step 1 answers according to what the person decided. */
export function diffTurn(request: RecordedRequest, steps: number, callId: string): ScriptStep {
  if (steps === 0) {
    return toolCalls([{ id: `${callId}_edit`, name: 'edit_file', arguments: { path: DIFF_FILE, oldText: DIFF_OLD, newText: DIFF_NEW } }], {
      text: `${DEMO_LABEL} Proposing the fix for trailing dashes.`,
    });
  }
  const output = lastToolOutput(request);
  if (/declined/i.test(output)) return reply(`${DEMO_LABEL} Understood: you declined, so ${DIFF_FILE} stays as it is.`);
  return reply(`${DEMO_LABEL} Fixed: ${DIFF_FILE} now trims trailing dashes.`);
}
