// The README's demo (`npm start` with nothing configured): three requests that fill a small reported window, so pruning, a reviewed compaction and its undo all show.
import type { Responder } from '../scriptedEndpoint';
import type { ScriptStep, ScriptedToolCall } from '../scriptedSteps';
import { reply, toolCalls } from '../scriptedSteps';
import { DEMO_LABEL, codingSession, isSummarizationRequest } from './codingSession';
import { messagesOf, hasTools, text } from './wireMessages';

/** The window the demo endpoint lists for its model (/v1/models context_length): small, so three requests fill it. */
export const DEMO_WINDOW = 12_000;
export const DEMO_MODEL = 'demo-model';

/** The README's three requests, in order. */
export const DEMO_REQUESTS = [
  'the slugify test fails, please fix it',
  'now check the docs for other slug rules we break',
  'run the tests again',
] as const;

/** Said at the end of every demo answer: what this is and the one step to a real model. */
export const DEMO_FOOTER = '*This is the scripted demo endpoint, not a model. To use your own server: **Compaction Agent: Set Up Endpoint**.*';

const SLUGIFY_BUG = ".replace(/^-+/, '');";
const SLUGIFY_FIX = ".replace(/^-+|-+$/g, '');";

const say = (line: string): string => `${DEMO_LABEL} ${line}`;
const answer = (line: string): ScriptStep => reply(`${say(line)}\n\n${DEMO_FOOTER}`);

type Plan = (call: (name: string, args: Record<string, unknown>) => ScriptedToolCall, outputs: string[]) => ScriptStep[];

/** Request 1: reads the test, the code and the documented rules (large outputs that later get pruned), fixes, re-runs. */
const fixPlan: Plan = (call, outputs) => [
  toolCalls([call('read_file', { path: 'test/slugify.test.mjs' }), call('read_file', { path: 'src/slugify.mjs' })], { text: say('Reading the failing test and the code it exercises.') }),
  toolCalls([call('read_file', { path: 'docs/slug-rules.md', startLine: 1, endLine: 140 })], { text: say('Reading the documented slug rules.') }),
  toolCalls([call('read_file', { path: 'docs/slug-rules.md', startLine: 290, endLine: 436 })], { text: say('Reading the edge cases at the end of the docs.') }),
  toolCalls([call('search_text', { pattern: 'slug' })], { text: say('Searching the workspace for every use of slugs.') }),
  toolCalls([call('run_command', { command: 'npm test 2>&1' })], { text: say('Running the tests to see the failure.') }),
  outputs.some((output) => output.includes(SLUGIFY_BUG))
    ? toolCalls([call('edit_file', { path: 'src/slugify.mjs', oldText: SLUGIFY_BUG, newText: SLUGIFY_FIX })], { text: say('Trailing dashes are never trimmed. Fixing the regular expression.') })
    : toolCalls([call('list_dir', { path: 'src' })], { text: say('The fix is already in place; checking the folder.') }),
  toolCalls([call('run_command', { command: 'npm test 2>&1 | tail -20' })], { text: say('Re-running the tests.') }),
  answer(`Fixed: \`slugify\` now trims dashes at both ends (\`${SLUGIFY_FIX}\`) and the tests pass. Watch the budget item in the status bar: it counts every token the model is sent.`),
];

/** Request 2: more of the docs, which fills the window towards the pruning threshold. */
const docsPlan: Plan = (call) => [
  toolCalls([call('read_file', { path: 'docs/slug-rules.md', startLine: 140, endLine: 290 })], { text: say('Reading the rest of the examples.') }),
  toolCalls([call('search_text', { pattern: '(draft)' })], { text: say('Checking the titles marked as drafts.') }),
  answer('The docs list four rules; with the fix, `slugify` follows all of them. The context is filling up: the next request will hide the first request\'s old tool outputs (pruning).'),
];

/** Request 3: one more command; before it the oldest outputs are pruned to placeholders. */
const againPlan: Plan = (call) => [
  toolCalls([call('run_command', { command: 'npm test 2>&1' })], { text: say('Running the tests once more.') }),
  answer('All tests pass. The oldest tool outputs were pruned to placeholders (they stay stored). Now try `@agent /compact`: the summary waits for your review in the Context & Compaction panel; apply it, then undo it with **Compaction Agent: Restore Pre-Compaction Branch**.'),
];

function planFor(userText: string): Plan {
  const asked = userText.split('\n')[0]?.toLowerCase() ?? '';
  if (/\bdocs?\b/.test(asked)) return docsPlan;
  if (/\bagain\b/.test(asked)) return againPlan;
  return fixPlan;
}

/** Replies by content: summaries for summarization requests, else the next step of the plan the last user message picks. */
export const demoSession: Responder = (request, index) => {
  if (isSummarizationRequest(request) || !hasTools(request)) return codingSession(request, index);
  const messages = messagesOf(request);
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const turn = messages.slice(lastUser + 1);
  const step = turn.filter((message) => message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0).length;
  const outputs = turn.filter((message) => message.role === 'tool').map(text);
  let calls = 0;
  const call = (name: string, args: Record<string, unknown>): ScriptedToolCall => ({ id: `call_demo_${index}_${calls++}`, name, arguments: args });
  const steps = planFor(text(messages[lastUser]))(call, outputs);
  return steps[Math.min(step, steps.length - 1)] ?? answer('Done.');
};

export default demoSession;
