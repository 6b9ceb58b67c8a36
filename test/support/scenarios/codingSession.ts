// Demo scenario: a scripted "model" that fixes a failing test with tools, chosen by content so any turn count works.
import type { RecordedRequest, Responder } from '../scriptedEndpoint';
import type { ScriptStep, ScriptedToolCall } from '../scriptedSteps';
import { reply, toolCalls } from '../scriptedSteps';
import { type WireMessage, messagesOf, text } from './wireMessages';

/** Every text this scenario produces starts with this label, so no one mistakes it for a real model. */
export const DEMO_LABEL = '[demo endpoint]';

interface WireTool {
  function?: { name?: string; parameters?: { properties?: Record<string, unknown> } };
}

function toolsOf(request: RecordedRequest): WireTool[] {
  const body = request.body as { tools?: WireTool[] };
  return Array.isArray(body.tools) ? body.tools : [];
}

/** A summarization request carries no tools and asks, in its system or last user message, for a summary. */
export function isSummarizationRequest(request: RecordedRequest): boolean {
  const messages = messagesOf(request);
  const system = messages.filter((message) => message.role === 'system' || message.role === 'developer').map(text).join('\n');
  const lastUser = text([...messages].reverse().find((message) => message.role === 'user'));
  return toolsOf(request).length === 0 && /summar(y|ize|ise)|compact/i.test(`${system}\n${lastUser}`);
}

/** Maps an intent to the parameter names the agent's tool schema really uses (path vs file_path, ...). */
function argumentsFor(request: RecordedRequest, tool: string, wanted: Record<string, string>): Record<string, unknown> {
  const schema = toolsOf(request).find((candidate) => candidate.function?.name === tool);
  const names = Object.keys(schema?.function?.parameters?.properties ?? {});
  const args: Record<string, unknown> = {};
  for (const [intent, value] of Object.entries(wanted)) {
    const hints: Record<string, RegExp> = {
      path: /path|file/i,
      pattern: /pattern|query|regex|text/i,
      command: /command|cmd/i,
      oldText: /old|search|find/i,
      newText: /new|replace/i,
    };
    const hint = hints[intent];
    args[names.find((name) => name === intent) ?? names.find((name) => hint?.test(name) === true) ?? intent] = value;
  }
  return args;
}

/** The test file the user named, or a default. */
function targetFile(messages: WireMessage[]): string {
  const mention = messages.map(text).join('\n').match(/[\w./-]+\.(?:test|spec)\.[cm]?[jt]s/);
  return mention?.[0] ?? 'test/slugify.test.mjs';
}

/** The sample workspace's bug and its fix, so the demo changes real code when it runs there. */
const SLUGIFY_BUG = ".replace(/^-+/, '');";
const SLUGIFY_FIX = ".replace(/^-+|-+$/g, '');";

/** First line of the file as read back, that an assertion lives on; the edit targets it. */
function assertionLine(toolOutputs: string[]): string | undefined {
  for (const output of toolOutputs) {
    const line = output.split('\n').find((candidate) => /expect\(|assert/.test(candidate));
    if (line) return line.replace(/^\s*\d+[:|\s]\s?/, '');
  }
  return undefined;
}

const SUMMARY = `${DEMO_LABEL} Summary of the conversation so far

## Goal
Fix the failing unit test the user pointed at, without changing the public API.

## Constraints and preferences
- Fix the implementation, not the test: the test matches the documented slug rules.
- Keep the change minimal; no new dependencies.

## Progress
### Done
- Read the failing test file and the implementation it exercises.
- Searched the workspace for the function under test and the documented rules.
- Ran the test suite: the trailing-punctuation case failed because trailing dashes were never trimmed.
- Edited the implementation to trim dashes at both ends.
### In progress
- Confirming that the whole suite passes after the edit.
### Blocked
- Nothing.

## Key decisions
- Trim with one regular expression for both ends instead of a second replace call.

## Next steps
- Re-run the test suite and confirm that everything passes.
- Report the fix to the user.

## Critical context
- The slug rules live in docs/slug-rules.md; the tests run with \`npm test\` (node --test).`;

function nextToolStep(request: RecordedRequest, messages: WireMessage[], stepIndex: number, toolOutputs: string[]): ScriptStep {
  const file = targetFile(messages);
  const call = (name: string, wanted: Record<string, string>): ScriptedToolCall => ({
    id: `call_demo_${stepIndex}_${name}`,
    name,
    arguments: argumentsFor(request, name, wanted),
  });
  const say = (line: string): string => `${DEMO_LABEL} ${line}`;
  switch (stepIndex) {
    case 0:
      return toolCalls([call('read_file', { path: file })], { text: say(`Let me look at ${file} first.`) });
    case 1:
      return toolCalls([call('search_text', { pattern: 'replace' })], {
        text: say('Now I will find the code this test exercises and the documented rules.'),
      });
    case 2:
      return toolCalls([call('run_command', { command: 'npm test 2>&1 | head -400' })], {
        text: say('Running the test suite to see the failure output.'),
      });
    case 3: {
      if (toolOutputs.some((output) => output.includes(SLUGIFY_BUG))) {
        return toolCalls([call('edit_file', { path: 'src/slugify.mjs', oldText: SLUGIFY_BUG, newText: SLUGIFY_FIX })], {
          text: say('The trailing dash is never trimmed: only leading dashes are removed. Fixing the regular expression.'),
        });
      }
      const line = assertionLine(toolOutputs) ?? 'expect(result).toBe(expected);';
      return toolCalls([call('edit_file', { path: file, oldText: line, newText: `${line} // checked by the demo endpoint` })], {
        text: say('The failure is an off-by-one; applying the fix.'),
      });
    }
    case 4:
      return toolCalls([call('run_command', { command: 'npm test 2>&1 | tail -40' })], {
        text: say('Re-running the tests to confirm the fix.'),
      });
    default:
      return reply(
        toolOutputs.some((output) => output.includes(SLUGIFY_BUG))
          ? say(`Fixed: \`slugify\` now trims dashes at both ends (\`${SLUGIFY_FIX}\`), so the failing test in ${file} passes and the others still do.`)
          : say(`The failing test in ${file} now passes: the range check used an exclusive upper bound. All other tests still pass.`),
      );
  }
}

/** Replies by content: summaries for summarization requests, else the next step of the fix-the-test plan. */
export const codingSession: Responder = (request) => {
  if (isSummarizationRequest(request)) return reply(SUMMARY, { chunkChars: 40 });
  const messages = messagesOf(request);
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const turn = messages.slice(lastUser + 1);
  // The plan restarts at each user message; assistant tool-call messages count the steps already taken.
  const stepIndex = turn.filter((message) => message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0).length;
  const toolOutputs = turn.filter((message) => message.role === 'tool').map(text);
  if (toolsOf(request).length === 0) {
    return reply(`${DEMO_LABEL} I have no tools in this request, so I can only answer in text: please enable the agent tools.`);
  }
  const lastUserText = lastUser >= 0 ? text(messages[lastUser]) : '';
  if (/\bdocs?\b/i.test(lastUserText)) return nextDocsStep(request, stepIndex, toolOutputs);
  return nextToolStep(request, messages, stepIndex, toolOutputs);
};

/** A follow-up that reads the long docs file, so the budget fills and pruning and compaction show. */
function nextDocsStep(request: RecordedRequest, stepIndex: number, toolOutputs: string[]): ScriptStep {
  const call = (name: string, wanted: Record<string, string>): ScriptedToolCall => ({
    id: `call_docs_${stepIndex}_${name}`,
    name,
    arguments: argumentsFor(request, name, wanted),
  });
  const say = (line: string): string => `${DEMO_LABEL} ${line}`;
  switch (stepIndex) {
    case 0:
      return toolCalls([call('read_file', { path: 'docs/slug-rules.md' })], { text: say('Reading the documented slug rules.') });
    case 1:
      return toolCalls([call('search_text', { pattern: '(draft)' })], { text: say('Checking the titles marked as drafts, which add a suffix.') });
    default: {
      const drafts = toolOutputs.at(-1)?.split('\n').filter((line) => line.includes('(draft)')).length ?? 0;
      return reply(
        say(
          `The docs list four rules; with the fix, \`slugify\` follows all of them. ${drafts} example title(s) end in "(draft)": their documented slugs keep the word "draft", which the implementation already does.`,
        ),
      );
    }
  }
}

export default codingSession;
