// /drop and /handoff through the real participant: measured drops confirmed by their button and undone, a reviewed hand-off the chat continues.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SUMMARY_PREFIX } from '../../src/core/context/contextMarkers';
import { reply, toolCalls } from '../support/scriptedSteps';
import { validateChatMessages } from '../support/validateChatMessages';
import { activeSession, agentApi, waitFor } from './support/agentApi';
import { newChatThread, resultSession, sendChat } from './support/chatDriver';
import { agentRequests, messagesOf, requestText, useScriptedEndpoint, validSummary, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { pathSummary } from './support/sessionChecks';

const FAILED_OUTPUT = 'REGEX-ATTEMPT-OUTPUT';

describe('/drop and /handoff in the chat', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('/drop or /handoff on an empty session, or /drop with an invalid range, says why and changes nothing', async () => {
    endpoint = await useScriptedEndpoint(roleScript({ agent: [reply('Generics recurse on angle brackets.')] }));
    await newChatThread();
    const empty = await sendChat('@agent /drop', endpoint.model);
    assert.match(empty.reply.text, /nothing in the context to drop yet/);
    const handoff = await sendChat('@agent /handoff', endpoint.model);
    assert.match(handoff.reply.text, /Nothing to hand off yet: this session has no messages/);
    const none = await sendChat('@agent /drop 1', endpoint.model);
    assert.match(none.reply.text, /There is no turn 1: there are no turns in the context yet\. Nothing was dropped\./);
    await sendChat('@agent how are generics parsed?', endpoint.model);
    const reversed = await sendChat('@agent /drop 3-1', endpoint.model);
    assert.match(reversed.reply.text, /not a valid range/);
    const beyond = await sendChat('@agent /drop 1-7', endpoint.model);
    assert.match(beyond.reply.text, /There is no turn 7: the context has turns 1–1\./);
    const session = await activeSession();
    assert.ok(!session.log.tree.entries.some((entry) => entry.type === 'drop'), `a drop was written: ${pathSummary(session)}`);
  });

  it('/drop measures a failed approach, drops it when its button is clicked, and /drop undo brings it back', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [
          reply('Generics recurse on angle brackets.'),
          toolCalls([{ name: 'run_command', arguments: { command: `echo ${FAILED_OUTPUT}` } }]),
          reply('The regex approach failed.'),
          reply('Next: fix the >> token in the recursive parser.'),
          reply('Back with the regex attempt in view.'),
        ],
      }),
    );
    await newChatThread();
    await sendChat('@agent how are generics parsed?', endpoint.model);
    await sendChat('@agent try a regex parser instead', endpoint.model);
    const listed = await sendChat('@agent /drop', endpoint.model);
    assert.match(listed.reply.text, /2\. try a regex parser instead — tool steps 2\.1 run_command/);

    const shown = await sendChat('@agent /drop 2', endpoint.model);
    assert.match(shown.reply.text, /Dropping turn 2: the turn "try a regex parser instead" \(4 messages\) frees ~[\d.]+k? tokens \([\d.]+k? → [\d.]+k? of [\d.]+k? usable\)/);
    const session = await activeSession();
    assert.ok(!session.log.path().some((entry) => entry.type === 'drop'), 'dropped before the person confirmed');
    const confirm = shown.reply.commands.find((command) => command.command === 'compactionAgent.dropFromContext');
    assert.ok(confirm, `no confirm button: ${shown.reply.buttons.join(', ')}`);
    const confirmArguments: unknown[] = confirm.arguments ?? [];
    await vscode.commands.executeCommand(confirm.command, ...confirmArguments);
    const drop = session.log.path().find((entry) => entry.type === 'drop');
    assert.ok(drop?.type === 'drop' && drop.dropped && drop.entryIds.length === 4 && drop.tokens > 0, `no drop entry: ${pathSummary(session)}`);

    await sendChat('@agent what next?', endpoint.model);
    const afterDrop = agentRequests(endpoint.server).at(-1);
    assert.ok(!requestText(afterDrop).includes(FAILED_OUTPUT) && !requestText(afterDrop).includes('try a regex parser'), 'the dropped turn was still sent');
    assert.ok(requestText(afterDrop).includes('how are generics parsed?'));
    assert.deepEqual(validateChatMessages(messagesOf(afterDrop)), []);

    const undone = await sendChat('@agent /drop undo', endpoint.model);
    assert.match(undone.reply.text, /Brought back turn 2: .* brings back ~[\d.]+k? tokens/);
    await sendChat('@agent and now?', endpoint.model);
    const afterUndo = agentRequests(endpoint.server).at(-1);
    assert.ok(requestText(afterUndo).includes(FAILED_OUTPUT), 'the undone drop is still missing from the request');
    assert.deepEqual(validateChatMessages(messagesOf(afterUndo)), []);
    // Nothing was ever deleted: the log holds the dropped turn and both drop entries.
    assert.equal(session.log.tree.entries.filter((entry) => entry.type === 'drop').length, 2);
  });

  it('the panel measures a drop, applies it on Drop, says why for a bad range, and brings it back with undo', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [reply('Generics recurse on angle brackets.'), toolCalls([{ name: 'run_command', arguments: { command: `echo ${FAILED_OUTPUT}` } }]), reply('The regex approach failed.')] }),
    );
    await newChatThread();
    await sendChat('@agent how are generics parsed?', endpoint.model);
    await sendChat('@agent try a regex parser instead', endpoint.model);
    const api = await agentApi();
    const session = await activeSession();
    assert.deepEqual(
      api.review.getState().turns?.map((turn) => [turn.number, turn.request, turn.steps.map((step) => step.number)]),
      [
        [1, 'how are generics parsed?', []],
        [2, 'try a regex parser instead', ['2.1']],
      ],
    );
    await api.review.previewDrop('9');
    assert.match(api.review.getState().notice?.text ?? '', /There is no turn 9: the context has turns 1–2\. Nothing was dropped\./);

    await api.review.previewDrop('2.1');
    const preview = api.review.getState().dropPreview;
    assert.ok(preview && preview.dropped && preview.tokens > 0 && preview.usedAfter < preview.usedBefore, `no measured preview: ${JSON.stringify(preview)}`);
    assert.ok(!session.log.path().some((entry) => entry.type === 'drop'), 'dropped before Drop was clicked');
    await api.review.confirmDrop(preview.id);
    const drop = session.log.path().find((entry) => entry.type === 'drop');
    assert.ok(drop?.type === 'drop' && drop.entryIds.length === 2 && drop.tokens === preview.tokens, `unexpected drop: ${pathSummary(session)}`);
    const state = api.review.getState();
    assert.equal(state.dropPreview, undefined);
    assert.equal(state.canUndoDrop, true);
    assert.deepEqual(state.turns?.[1]?.steps.map((step) => step.dropped), [true]);

    await api.review.previewDrop('undo');
    const undo = api.review.getState().dropPreview;
    assert.ok(undo && !undo.dropped && undo.tokens === preview.tokens, `no undo preview: ${JSON.stringify(undo)}`);
    await api.review.confirmDrop(undo.id);
    assert.equal(api.review.getState().canUndoDrop, false);
    assert.match(api.review.getState().notice?.text ?? '', /Brought back tool step 2\.1/);
  });

  it('/handoff waits for the review, starts a session with the edited summary that this chat continues, and keeps the source whole', async () => {
    const summary = validSummary('Make the failing slugify test pass.');
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [reply('Alpha fails on the umlaut.'), reply('Beta passes.'), reply('Continuing in the new session.')], summary: [reply(summary)] }),
      { 'compaction.review': 'manual' },
    );
    await newChatThread();
    await sendChat('@agent first question: why does the alpha test fail?', endpoint.model);
    await sendChat('@agent second question: what about beta?', endpoint.model);
    const source = await activeSession();
    const sourceEntries = source.log.tree.entries.length;
    const api = await agentApi();

    const sending = sendChat('@agent /handoff keep the umlaut finding', endpoint.model);
    const proposal = await waitFor('the hand-off summary to review', () => api.review.getState().proposal);
    assert.equal(proposal.handoff, true);
    assert.equal(proposal.kept.length, 0);
    const edited = `${proposal.summary}\n\n- EDITED: start from slugify.mjs`;
    await api.review.apply(proposal.id, edited, true);
    const { result, reply: shown } = await sending;
    assert.match(shown.text, /Started a new session from the reviewed summary .*this chat continues it, and your next request names it/);

    const target = await activeSession();
    assert.notEqual(target.id, source.id);
    assert.equal(resultSession(result)?.sessionId, target.id, 'the chat does not continue the new session');
    const seeded = target.log.path();
    assert.equal(seeded.length, 1);
    const seed = seeded[0];
    assert.ok(seed?.type === 'compaction' && seed.summary === edited && seed.edited && seed.handoffFrom?.sessionId === source.id, `unexpected seed: ${pathSummary(target)}`);
    assert.equal(target.log.header.handoffFrom?.sessionId, source.id);
    assert.equal(source.log.tree.entries.length, sourceEntries, 'the source session was written to');
    const records = await api.sessions.store.list();
    const listed = records.map((record) => record.id);
    assert.ok(listed.includes(source.id) && listed.includes(target.id), 'both sessions are not in the Sessions list');
    assert.equal(records.find((record) => record.id === target.id)?.handoffFrom, source.id, 'the Sessions list does not link the new session to its source');

    assert.equal(target.title, `Continues “${source.title}”`, 'before its first request the new session says whose work it continues');
    const next = await sendChat('@agent go on', endpoint.model);
    assert.equal(resultSession(next.result)?.sessionId, target.id);
    assert.equal(target.title, 'go on', 'the first request did not name the new session');
    assert.equal((await api.sessions.store.list()).find((record) => record.id === target.id)?.title, 'go on');
    const messages = messagesOf(agentRequests(endpoint.server).at(-1));
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'user'],
    );
    assert.ok(String(messages[1]?.content).startsWith(SUMMARY_PREFIX) && String(messages[1]?.content).includes('EDITED: start from slugify.mjs'));
    assert.deepEqual(validateChatMessages(messages), []);
  });
});
