// What the chat shows when the endpoint fails: a clear auth message, rate-limit retries, and overflow recovery without loops.
import * as assert from 'node:assert/strict';
import { faults, reply } from '../support/scriptedSteps';
import { validateChatMessages } from '../support/validateChatMessages';
import { activeSession } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { agentRequests, isSummaryRequest, messagesOf, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { pathSummary } from './support/sessionChecks';

describe('endpoint errors', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('a rejected API key shows a clear message and the Set API Key button', async () => {
    endpoint = await useScriptedEndpoint([reply('never sent')], {}, { apiKey: 'the-right-key' });
    await newChatThread();
    const { reply: shown } = await sendChat('@agent hello', endpoint.model);
    assert.match(shown.text, /API key/);
    assert.ok(shown.buttons.includes('Set API Key'), `buttons: ${shown.buttons.join(', ')}`);
    assert.ok(!shown.text.includes('the-right-key'));
  });

  it('a 429 with Retry-After is retried and the answer arrives', async () => {
    endpoint = await useScriptedEndpoint([faults.rateLimited(1), reply('Answer after the rate limit.')], { 'endpoint.maxRetries': 2 });
    await newChatThread();
    const { reply: shown } = await sendChat('@agent hello', endpoint.model);
    assert.match(shown.text, /Answer after the rate limit\./);
    assert.equal(endpoint.server.requestCount, 2);
    assert.ok(shown.progress.some((line) => /Retrying in 1 s/.test(line)), `progress: ${shown.progress.join(' | ')}`);
    const session = await activeSession();
    assert.deepEqual(session.log.path().map((entry) => entry.type), ['user', 'assistant']);
  });

  it('an overflow error compacts once and retries', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [reply('First answer.'), faults.overflow('openai', 60000, 70000), reply('Answer after compacting.')] }),
      { 'compaction.review': 'never' },
    );
    await newChatThread();
    await sendChat('@agent first message', endpoint.model);
    const { reply: shown } = await sendChat('@agent second message', endpoint.model);
    assert.match(shown.text, /Answer after compacting\./);
    const session = await activeSession();
    assert.equal(session.log.path().filter((entry) => entry.type === 'compaction').length, 1, pathSummary(session));
    assert.equal(endpoint.server.requests.filter(isSummaryRequest).length, 1);
    assert.equal(agentRequests(endpoint.server).length, 3);
    const retried = messagesOf(agentRequests(endpoint.server).at(-1));
    assert.deepEqual(validateChatMessages(retried), []);
    assert.equal(retried.at(-1)?.content, 'second message', 'the retry lost the user message');
  });

  it('an overflow again after compacting stops with a clear error instead of looping', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [reply('First answer.'), faults.overflow('openai', 60000, 70000), faults.overflow('openai', 60000, 70000), reply('must not be reached')] }),
      { 'compaction.review': 'never' },
    );
    await newChatThread();
    await sendChat('@agent first message', endpoint.model);
    const { reply: shown } = await sendChat('@agent second message', endpoint.model);
    assert.match(shown.text, /too long for the model/);
    assert.ok(!shown.text.includes('must not be reached'));
    assert.equal(agentRequests(endpoint.server).length, 3, 'the agent kept calling the endpoint');
    assert.equal(endpoint.server.requests.filter(isSummaryRequest).length, 1, 'compacted more than once');
    const session = await activeSession();
    assert.equal(session.log.path().filter((entry) => entry.type === 'compaction').length, 1, pathSummary(session));
  });
});
