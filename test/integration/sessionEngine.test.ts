// One session engine in the real host: a review replaced by Compact Now, a restore while a command runs, a failed request that keeps its turn.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SessionEntry } from '../../src/core/session/entries';
import { restoreCheckpoint } from '../../src/vscode/sessions/checkpointRestore';
import { faults, reply, toolCalls } from '../support/scriptedSteps';
import { activeSession, agentApi, waitFor } from './support/agentApi';
import { newChatThread, resultSession, sendChat } from './support/chatDriver';
import { agentRequests, requestText, useScriptedEndpoint, validSummary, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { pathSummary } from './support/sessionChecks';

function userEntry(path: readonly SessionEntry[], text: string): SessionEntry | undefined {
  return path.find((entry) => entry.type === 'user' && entry.text.includes(text));
}

describe('one session engine', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('Compact Now while an automatic compaction waits for review answers the waiting request, which stops with the reason', async function () {
    this.timeout(120_000);
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [reply('Alpha fails on the umlaut.'), reply('Beta passes.'), faults.overflow('openai', 16000, 20000)],
        summary: [reply(validSummary('Explain the failing tests.')), reply(validSummary('Explain the failing tests, manual.'))],
      }),
      { 'compaction.review': 'always' },
    );
    await newChatThread();
    await sendChat('@agent first question: why does the alpha test fail?', endpoint.model);
    await sendChat('@agent second question: what about beta?', endpoint.model);
    const api = await agentApi();
    const third = sendChat('@agent third question: and gamma?', endpoint.model);
    let ended = false;
    void third.finally(() => (ended = true));
    await waitFor('the automatic proposal waiting for review', () => {
      if (ended) throw new Error(`the request ended without waiting for a review: ${api.replies.last?.text ?? ''}`);
      return api.review.getState().proposal?.auto ? true : undefined;
    }, 40_000);
    const manual = await api.review.compactNow('');
    assert.ok(manual, 'Compact Now made no proposal');
    assert.equal(manual.auto, false);
    const { reply: shown } = await third;
    assert.match(shown.text, /replaced by your Compact Now/, `the waiting request did not say why it stopped: ${shown.text}`);
    const state = api.review.getState();
    assert.equal(state.proposal?.id, manual.id, 'the manual proposal is not the one waiting');
    await api.review.cancel(manual.id);
    const session = await activeSession();
    assert.equal(session.engine.state, 'idle');
    assert.ok(!session.log.path().some((entry) => entry.type === 'compaction'), `nothing was applied: ${pathSummary(session)}`);
  });

  it('a restore while a command runs stops the request first, and the command result stays on the old branch with its call', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [reply('Ready.'), toolCalls([{ id: 'call_sleep', name: 'run_command', arguments: { command: 'sleep 3; echo finished' } }]), reply('Should not be asked.')],
      }),
    );
    await newChatThread();
    await sendChat('@agent warm up', endpoint.model);
    const running = sendChat('@agent run the slow command', endpoint.model);
    const session = await waitFor('the command call on the session', async () => {
      const active = (await agentApi()).sessions.active;
      return active?.log.path().some((entry) => entry.type === 'assistant' && entry.toolCalls.some((call) => call.id === 'call_sleep')) ? active : undefined;
    });
    const request = userEntry(session.log.path(), 'run the slow command');
    assert.ok(request, `no request entry: ${pathSummary(session)}`);
    let asked = 0;
    const message = await restoreCheckpoint(session, request.id, 'conversation', () => {
      asked++;
      return Promise.resolve(true);
    });
    assert.equal(asked, 1, 'the person was not asked before the request was stopped');
    assert.ok(message?.includes('continues from before that request'), `restore said: ${message}`);
    await running;
    const path = session.log.path();
    assert.equal(userEntry(path, 'run the slow command'), undefined, `the restored branch still holds the request: ${pathSummary(session)}`);
    assert.ok(!path.some((entry) => entry.type === 'toolResult' && entry.toolCallId === 'call_sleep'), 'the result landed on the new branch without its call');
    const result = session.log.tree.entries.find((entry) => entry.type === 'toolResult' && entry.toolCallId === 'call_sleep');
    assert.ok(result, 'the stopped command left no result');
    assert.ok(session.log.tree.pathTo(result.id).some((entry) => entry.type === 'assistant' && entry.toolCalls.some((call) => call.id === 'call_sleep')), 'the result is not on its call’s branch');
    assert.equal(agentRequests(endpoint.server).length, 2, 'the loop went on with a request the person had removed');
    assert.equal(session.engine.state, 'idle');
  });

  it('a failed request keeps its turn: the next message continues after it instead of branching back', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [reply('First done.'), toolCalls([{ id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } }]), faults.serverError(500), reply('Continuing.')],
      }),
    );
    await newChatThread();
    await sendChat('@agent first request', endpoint.model);
    const failed = await sendChat('@agent read the readme please', endpoint.model);
    assert.ok(resultSession(failed.result), 'the failed request returned no session metadata');
    const next = await sendChat('@agent go on', endpoint.model);
    assert.doesNotMatch(next.reply.text, /no longer shows/, 'the failed turn was taken for an edited one');
    const last = agentRequests(endpoint.server).at(-1);
    assert.ok(requestText(last).includes('read the readme please'), 'the model forgot the failed turn');
    const session = await activeSession();
    assert.ok(session.log.path().some((entry) => entry.type === 'toolResult' && entry.toolCallId === 'call_read'), `the failed turn's tool result left the path: ${pathSummary(session)}`);
  });
});
