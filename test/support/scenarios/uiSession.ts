// UI-tier scenario: short tool-using turns (so a small window fills visibly), summaries, and a hostile turn full of XSS payloads.
import type { RecordedRequest, Responder } from '../scriptedEndpoint';
import type { ScriptStep } from '../scriptedSteps';
import { reply, toolCalls } from '../scriptedSteps';
import { XSS_PAYLOADS } from '../xssPayloads';
import { CHECKPOINT_TRIGGER, checkpointTurn } from './checkpointTurns';
import { DEMO_LABEL, codingSession, isSummarizationRequest } from './codingSession';

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

/** A user message containing this word gets the hostile turn: it writes and reads HOSTILE_FILE and answers with every payload. */
export const HOSTILE_TRIGGER = 'hostile';
/** Workspace file the hostile turn writes the payloads to, so a real tool output carries them. */
export const HOSTILE_FILE = 'hostile.md';

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
}

function messagesOf(request: RecordedRequest): WireMessage[] {
  const body = request.body as { messages?: WireMessage[] };
  return Array.isArray(body.messages) ? body.messages : [];
}

function hasTools(request: RecordedRequest): boolean {
  const body = request.body as { tools?: unknown[] };
  return Array.isArray(body.tools) && body.tools.length > 0;
}

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
  return reply(say(`Hostile reply follows.\n\n${XSS_PAYLOADS.join('\n\n')}\n\nEnd of hostile reply.`), { chunkChars: 400 });
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
  if (userText.toLowerCase().includes(HOSTILE_TRIGGER)) return hostileTurn(steps, callId);
  if (userText.toLowerCase().includes(CHECKPOINT_TRIGGER)) return checkpointTurn(userText, steps, callId);
  return shortTurn(userTurns, steps, callId);
};

export default uiSession;
