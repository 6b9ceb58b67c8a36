// Stopping @agent from the Chat view mid-tool and mid-compaction leaves a log that verifies and a next request a provider accepts.
import * as assert from 'node:assert/strict';
import type { AgentSession } from '../../src/vscode/sessions/agentSession';
import { faults, reply, toolCalls } from '../support/scriptedSteps';
import { validateChatMessages } from '../support/validateChatMessages';
import { agentApi, waitFor } from './support/agentApi';
import { cancelChat, newChatThread, sendChat } from './support/chatDriver';
import { agentRequests, isSummaryRequest, messagesOf, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { pathSummary, verifySessionFile } from './support/sessionChecks';

/** The active session once its path satisfies `ready` (the request runs in the background meanwhile). */
async function sessionWhen(what: string, ready: (session: AgentSession) => boolean): Promise<AgentSession> {
  const api = await agentApi();
  return waitFor(what, () => {
    const session = api.sessions.active;
    return session && ready(session) ? session : undefined;
  });
}

async function expectConsistent(session: AgentSession): Promise<void> {
  const report = await verifySessionFile(session.log.file);
  assert.equal(report.ok, true, `verify: ${JSON.stringify(report)}`);
  assert.deepEqual(report.unansweredCalls, [], pathSummary(session));
  assert.deepEqual(report.orphanedResults, [], pathSummary(session));
}

describe('cancellation', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('stopping during a running command records a cancelled result and the next request is valid', async function () {
    this.timeout(90_000);
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [toolCalls([{ id: 'call_sleep', name: 'run_command', arguments: { command: 'sleep 300' } }]), reply('Still here after the stop.')] }),
      { 'tools.commandTimeoutSeconds': 600 },
    );
    await newChatThread();
    const sending = sendChat('@agent run the slow command', endpoint.model);
    const session = await sessionWhen('the run_command call in the log', (candidate) =>
      candidate.log.path().some((entry) => entry.type === 'assistant' && entry.toolCalls.some((call) => call.id === 'call_sleep')),
    );
    await cancelChat();
    await sending;

    const result = session.log.path().find((entry) => entry.type === 'toolResult' && entry.toolCallId === 'call_sleep');
    assert.ok(result?.type === 'toolResult', `the cancelled call has no result: ${pathSummary(session)}`);
    assert.equal(result.isError, true);
    assert.match(result.content, /cancel/i);
    await expectConsistent(session);

    const next = await sendChat('@agent are you there?', endpoint.model);
    assert.match(next.reply.text, /Still here after the stop\./);
    const sent = messagesOf(agentRequests(endpoint.server).at(-1));
    assert.deepEqual(validateChatMessages(sent), []);
    assert.ok(sent.some((message) => message.role === 'tool' && message.tool_call_id === 'call_sleep'), 'the cancelled call was dropped from the context');
    await expectConsistent(session);
  });

  it('stopping while the summarizer hangs appends no compaction and the next request is valid', async function () {
    this.timeout(90_000);
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [reply('First answer.'), faults.overflow('openai', 60000, 70000), reply('Answer after the stop.')],
        summary: [faults.hang()],
      }),
      { 'endpoint.timeoutSeconds': 600 },
    );
    await newChatThread();
    await sendChat('@agent first message', endpoint.model);
    const server = endpoint.server;
    const sending = sendChat('@agent second message that overflows', endpoint.model);
    await waitFor('the summarizer call', () => (server.requests.some(isSummaryRequest) ? true : undefined));
    await cancelChat();
    await sending;

    const session = (await agentApi()).sessions.active;
    assert.ok(session);
    assert.ok(!session.log.path().some((entry) => entry.type === 'compaction'), `a cancelled compaction was applied: ${pathSummary(session)}`);
    await expectConsistent(session);

    const next = await sendChat('@agent and now?', endpoint.model);
    assert.match(next.reply.text, /Answer after the stop\./);
    const sent = messagesOf(agentRequests(endpoint.server).at(-1));
    assert.deepEqual(validateChatMessages(sent), []);
    assert.ok(sent.some((message) => message.content === 'first message'), 'the history was lost');
    await expectConsistent(session);
  });
});
