// UI-tier scenario: short tool-using turns (so a small window fills visibly), summaries, and a hostile turn full of XSS payloads.
import type { RecordedRequest, Responder } from '../scriptedEndpoint';
import type { ScriptStep } from '../scriptedSteps';
import { reply, toolCalls } from '../scriptedSteps';
import { autoUsage } from '../scriptedWire';
import { XSS_PAYLOADS } from '../xssPayloads';
import { CHECKPOINT_TRIGGER, checkpointTurn } from './checkpointTurns';
import { DIFF_TRIGGER, diffTurn } from './diffTurns';
import { DELEGATE_TRIGGER, DELEGATED_TASK, delegatedTurn, delegatingTurn } from './delegationTurns';
import { DEMO_LABEL, codingSession, isSummarizationRequest } from './codingSession';
import { type WireMessage, messagesOf, hasTools } from './wireMessages';

/** A summary with every heading the product's validator requires, so the review shows no problems. */
export const UI_SUMMARY = `${DEMO_LABEL} Summary of the conversation so far

## Goal
Understand the slugify-lite workspace and keep its tests green.

## Constraints and preferences
- Keep the test names in test/slugify.test.mjs unchanged.

## Progress
### Done
- Read README.md and listed the workspace root (src/, test/, package.json).
### In progress
- Checking the tests folder.
### Blocked
(none)

## Key decisions
- No code changes until the tests have been run.

## Next steps
- Run npm test and report the result.

## Critical context
- The module under test is src/slugify.mjs.`;

/** A user message containing this word gets an answer preceded by streamed reasoning (shown collapsed). */
export const REASONING_TRIGGER = 'think it through';
export const REASONING_TEXT = 'The user asks which slug rules apply.\n\nslugify lower-cases, trims and joins words with dashes; the tests cover umlauts, so transliteration matters.';
export const REASONING_ANSWER = 'Three rules: lower-case, trim, join words with dashes.';

/** A user message containing this phrase gets an answer whose usage carries OpenRouter's `cost` and a cached share. */
export const COST_TRIGGER = 'what did that cost';
export const COST_USD = 0.0123;

function costTurn(request: RecordedRequest): ScriptStep {
  const step = reply(`${DEMO_LABEL} This reply's usage reports its cost, as OpenRouter does.`);
  const usage = autoUsage(request.body, step);
  return { ...step, usage: { ...usage, cachedTokens: Math.floor(usage.promptTokens * 0.75), cost: COST_USD } };
}

/** A user message containing this word gets the hostile turn: it writes and reads HOSTILE_FILE and answers with every payload. */
export const HOSTILE_TRIGGER = 'hostile';
/** Workspace file the hostile turn writes the payloads to, so a real tool output carries them. */
export const HOSTILE_FILE = 'hostile.md';

/** The messages after the last user message, and that message's text. */
function currentTurn(messages: WireMessage[]): { userText: string; userTurns: number; steps: number } {
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const content = messages[lastUser]?.content;
  const userText = typeof content === 'string' ? content : JSON.stringify(content ?? '');
  const steps = messages.slice(lastUser + 1).filter((message) => message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0).length;
  const userTurns = messages.filter((message) => message.role === 'user').length;
  return { userText, userTurns, steps };
}

/** Writes the payloads to a workspace file, reads it back (a real tool output carrying them), then answers with all of them. */
function hostileTurn(steps: number, callId: string): ScriptStep {
  const say = (line: string): string => `${DEMO_LABEL} ${line}`;
  if (steps === 0) {
    return toolCalls([{ id: `${callId}_write`, name: 'write_file', arguments: { path: HOSTILE_FILE, content: XSS_PAYLOADS.join('\n\n') } }], {
      text: say(`Writing ${HOSTILE_FILE}. ${XSS_PAYLOADS.slice(0, 5).join(' ')}`),
    });
  }
  if (steps === 1) {
    return toolCalls([{ id: `${callId}_read`, name: 'read_file', arguments: { path: HOSTILE_FILE } }], { text: say(`Reading ${HOSTILE_FILE} back.`) });
  }
  // The reasoning carries the payloads too: it is shown (collapsed) with HTML allowed only around it.
  return reply(say(`Hostile reply follows.\n\n${XSS_PAYLOADS.join('\n\n')}\n\nEnd of hostile reply.`), { chunkChars: 400, reasoning: `</details>${XSS_PAYLOADS.join('\n')}` });
}

/** Two tool calls (read the README, list the root), then a one-line answer numbered by the user turn. */
function shortTurn(userTurns: number, steps: number, callId: string): ScriptStep {
  const say = (line: string): string => `${DEMO_LABEL} ${line}`;
  // Streamed slowly, so the status bar shows the estimate ("~") before this turn's first usage report.
  if (steps === 0) {
    return toolCalls([{ id: `${callId}_read`, name: 'read_file', arguments: { path: 'README.md' } }], { text: say('Reading the README first.'), chunkChars: 4, chunkDelayMs: 100 });
  }
  if (steps === 1) return toolCalls([{ id: `${callId}_list`, name: 'list_dir', arguments: { path: '.' } }], { text: say('Listing the workspace.') });
  // The answer never echoes the request, so a compacted request's words can only reach the model through the transcript.
  return reply(say(`Done with request ${userTurns}: the workspace holds a slugify module (src/slugify.mjs) and its tests (test/slugify.test.mjs).`));
}

/** Replies by content, like codingSession, but with turns short enough that a 16k window shows growth without overflowing. */
export const uiSession: Responder = (request, index) => {
  if (isSummarizationRequest(request)) return reply(UI_SUMMARY, { chunkChars: 40 });
  if (!hasTools(request)) return codingSession(request, index);
  const { userText, userTurns, steps } = currentTurn(messagesOf(request));
  // Tool call ids are unique per request, as real endpoints make them.
  const callId = `call_ui_${index}`;
  // Triggers are read from the request's own first line: attachments and notes after it must not trigger a turn.
  const asked = (userText.split('\n')[0] ?? '').toLowerCase();
  if (asked.includes(DELEGATED_TASK.toLowerCase())) return delegatedTurn(steps, callId);
  if (asked.includes(DELEGATE_TRIGGER)) return delegatingTurn(steps, callId);
  if (asked.includes(HOSTILE_TRIGGER)) return hostileTurn(steps, callId);
  if (asked.includes(CHECKPOINT_TRIGGER)) return checkpointTurn(asked, steps, callId);
  if (asked.includes(DIFF_TRIGGER)) return diffTurn(request, steps, callId);
  if (asked.includes(COST_TRIGGER)) return costTurn(request);
  if (asked.includes(REASONING_TRIGGER)) return reply(`${DEMO_LABEL} ${REASONING_ANSWER}`, { reasoning: REASONING_TEXT, chunkChars: 40 });
  return shortTurn(userTurns, steps, callId);
};

export default uiSession;
