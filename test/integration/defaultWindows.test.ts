// Issue 12 in the real host: 30 tool-heavy turns at 8k and 16k windows with the settings a user who changed nothing has,
// against an endpoint that lists its window, counts prompts its own way (JSON tool schemas), and refuses what does not fit.
import * as assert from 'node:assert/strict';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { RecordedRequest, Responder } from '../support/scriptedEndpoint';
import { faults, reply, toolCalls } from '../support/scriptedSteps';
import { validateChatMessages } from '../support/validateChatMessages';
import { activeSession } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { agentRequests, isSummaryRequest, messagesOf, useScriptedEndpoint, validSummary, type EndpointFixture } from './support/endpointFixture';
import { pathSummary } from './support/sessionChecks';
import { logLines, writeWorkspaceFiles } from './support/workspaceFiles';

const TURNS = 30;
const plain = { disallowedSpecial: new Set<string>() };

/** The prompt as a server with a JSON chat template counts it: every message and tool schema as JSON text. */
function serverPrompt(request: RecordedRequest): number {
  const body = request.body as { messages?: unknown; tools?: unknown };
  return countTokens(JSON.stringify(body.messages ?? []), plain) + countTokens(JSON.stringify(body.tools ?? []), plain);
}

function requestedOutput(request: RecordedRequest): number {
  const body = request.body as { max_tokens?: unknown; max_completion_tokens?: unknown };
  const value = body.max_tokens ?? body.max_completion_tokens;
  return typeof value === 'number' ? value : 0;
}

interface WindowServer {
  script: Responder;
  refusals: number[];
  prompts: number[];
}

/** Each turn: read that turn's file, then answer. Refuses prompt + max_tokens over the window like vLLM. */
function windowServer(window: number): WindowServer {
  const server: WindowServer = { script: () => reply('unused'), refusals: [], prompts: [] };
  const readTurns = new Set<number>();
  server.script = (request) => {
    const prompt = serverPrompt(request);
    if (prompt + requestedOutput(request) > window) {
      server.refusals.push(prompt + requestedOutput(request));
      return faults.overflow('vllm', window, prompt + requestedOutput(request));
    }
    server.prompts.push(prompt);
    const usage = { promptTokens: prompt, completionTokens: 30 };
    if (isSummaryRequest(request)) return reply(validSummary('Read each module file the user names and summarize it.'), { usage });
    const messages = messagesOf(request);
    const lastUser = [...messages].reverse().find((message) => message.role === 'user');
    const turn = Number(/turn (\d+)/.exec(typeof lastUser?.content === 'string' ? lastUser.content : '')?.[1] ?? -1);
    if (turn >= 0 && !readTurns.has(turn) && messages.at(-1)?.role === 'user') {
      readTurns.add(turn);
      return toolCalls([{ id: `call_${turn}`, name: 'read_file', arguments: { path: `modules/module${turn}.txt` } }], { usage });
    }
    return reply(`Module ${turn} holds its checks; nothing failed.`, { usage });
  };
  return server;
}

for (const window of [8192, 16384]) {
  describe(`default settings at a ${window}-token window (issue 12)`, function () {
    let endpoint: EndpointFixture | undefined;
    let cleanup: (() => void) | undefined;

    afterEach(async () => {
      await endpoint?.dispose();
      endpoint = undefined;
      cleanup?.();
    });

    it(`${TURNS} tool-heavy turns: no error shown, at most one refused prompt, and every request valid`, async function () {
      this.timeout(600_000);
      const files: Record<string, string> = {};
      for (let turn = 0; turn < TURNS; turn++) files[`modules/module${turn}.txt`] = logLines(`module${turn}`, 120);
      cleanup = writeWorkspaceFiles(files);
      const server = windowServer(window);
      endpoint = await useScriptedEndpoint(server.script, {}, { listedWindow: window });
      await newChatThread();
      const shown: string[] = [];
      for (let turn = 0; turn < TURNS; turn++) {
        const { reply: answer } = await sendChat(`@agent turn ${turn}: read modules/module${turn}.txt and tell me what it holds`, endpoint.model);
        shown.push(answer.text);
      }
      const session = await activeSession();
      const stopped = shown.filter((text) => /@agent stopped/.test(text));
      assert.deepEqual(stopped, [], `errors shown: ${pathSummary(session)}`);
      assert.ok(server.refusals.length <= 1, `the endpoint refused ${server.refusals.length} prompts (${server.refusals.join(', ')}) of a ${window} window`);
      const path = session.log.path();
      const made = path.filter((entry) => entry.type === 'compaction' || entry.type === 'prune').length;
      assert.ok(made > 0, `${TURNS} turns of file reads fit a ${window} window without pruning or compacting: ${pathSummary(session)}`);
      for (const request of agentRequests(endpoint.server)) assert.deepEqual(validateChatMessages(messagesOf(request)), []);
      const budget = session.budgetView();
      assert.ok(budget, 'no budget after the session');
      assert.equal(budget.contextWindow, window, `the window was not taken from the endpoint's list (${budget.windowSource})`);
      assert.ok(Math.max(...server.prompts) <= window, 'a prompt over the window was accepted');
    });
  });
}
