// @agent through the real Chat view: a reply creates a session, the thread maps to it, /new starts another.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { reply } from '../support/scriptedSteps';
import { validateChatMessages } from '../support/validateChatMessages';
import { activeSession } from './support/agentApi';
import { newChatThread, resultSession, sendChat } from './support/chatDriver';
import { messagesOf, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';

describe('chat round trip', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('stores the exchange in a new session and continues it in the same thread', async () => {
    endpoint = await useScriptedEndpoint([reply('First answer from the model.'), reply('Second answer, same session.'), reply('Answer in a new session.')]);
    await newChatThread();

    const first = await sendChat('@agent say hello', endpoint.model);
    assert.match(first.reply.text, /First answer from the model\./);
    const firstMapping = resultSession(first.result);
    assert.ok(firstMapping, `ChatResult.metadata does not name a session: ${JSON.stringify(first.result)}`);
    const session = await activeSession();
    assert.equal(session.id, firstMapping.sessionId);
    assert.equal(firstMapping.leafId, session.log.leafId);
    const firstPath = session.log.path();
    assert.deepEqual(firstPath.map((entry) => entry.type), ['user', 'assistant']);
    assert.equal(firstPath[0]?.type === 'user' && firstPath[0].text, 'say hello');
    assert.equal(firstPath[1]?.type === 'assistant' && firstPath[1].text, 'First answer from the model.');

    const second = await sendChat('@agent and again', endpoint.model);
    assert.equal(resultSession(second.result)?.sessionId, session.id, 'the second message of the thread started another session');
    assert.deepEqual(session.log.path().map((entry) => entry.type), ['user', 'assistant', 'user', 'assistant']);
    // The model saw the whole thread: system prompt, first exchange, then the new message.
    const sent = messagesOf(endpoint.server.requests[1]);
    assert.deepEqual(sent.map((message) => message.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(sent[3]?.content, 'and again');
    assert.deepEqual(validateChatMessages(sent), []);

    const fresh = await sendChat('@agent /new start over', endpoint.model);
    const freshMapping = resultSession(fresh.result);
    assert.ok(freshMapping);
    assert.notEqual(freshMapping.sessionId, session.id, '/new continued the old session');
    const newSession = await activeSession();
    assert.equal(newSession.id, freshMapping.sessionId);
    assert.deepEqual(newSession.log.path().map((entry) => entry.type), ['user', 'assistant']);
    assert.deepEqual(messagesOf(endpoint.server.requests[2]).map((message) => message.role), ['system', 'user']);
    // The old session is untouched by the new one.
    assert.equal(session.log.path().length, 4);
  });

  it('answers with how to configure an endpoint when none is set', async () => {
    await newChatThread();
    const setup = await sendChat('@agent hello', 'compaction-agent-setup');
    assert.match(setup.reply.text, /No endpoint is configured/);
    assert.ok(setup.reply.buttons.includes('Set Up Endpoint'));
  });

  it('shows streamed reasoning as one quoted line with a button that opens all of it, and never sends it back', async () => {
    const reasoning = 'First I compare the two branches.\n\nThen <b>the</b> [link](command:evil) is just text.';
    endpoint = await useScriptedEndpoint([reply('The answer.', { reasoning }), reply('Second.')]);
    await newChatThread();
    const sent = await sendChat('@agent think first', endpoint.model);
    assert.match(sent.reply.text, /Reasoning \(\d+ words\):\* First I compare the two branches\./);
    assert.ok(!sent.reply.text.includes('](command:evil)'), `the reasoning line carries live markdown: ${sent.reply.text}`);
    assert.ok(sent.reply.buttons.includes('Show reasoning'), `buttons: ${sent.reply.buttons.join(', ')}`);
    await vscode.commands.executeCommand('compactionAgent.showReasoning', reasoning);
    assert.equal(vscode.window.activeTextEditor?.document.getText(), reasoning);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await sendChat('@agent and then?', endpoint.model);
    assert.ok(!JSON.stringify(messagesOf(endpoint.server.requests[1])).includes('First I compare'), 'the reasoning was sent back to the model');
  });
});
