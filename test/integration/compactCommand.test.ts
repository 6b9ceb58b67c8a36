// /compact in the real Chat view: instructions reach the summarizer, review modes, edited summaries, and restoring the branch.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SUMMARY_PREFIX } from '../../src/core/context/contextMarkers';
import type { CompactionEntry } from '../../src/core/session/entries';
import { reply } from '../support/scriptedSteps';
import { validateChatMessages } from '../support/validateChatMessages';
import { activeSession, agentApi, waitFor } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { agentRequests, isSummaryRequest, messagesOf, requestText, useScriptedEndpoint, validSummary, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { pathSummary } from './support/sessionChecks';

const PANEL_TITLE = 'Context & Compaction';
const FOCUS = 'focus on the failing test';
const MODEL_SUMMARY = validSummary('Make the failing slugify test pass.');

function panelTabOpen(): boolean {
  return vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) => tab.input instanceof vscode.TabInputWebview && tab.label === PANEL_TITLE));
}

function compactionOnPath(entries: readonly { type: string }[]): CompactionEntry | undefined {
  return entries.find((entry): entry is CompactionEntry => entry.type === 'compaction');
}

/** Two exchanges the summarizer can replace; the agent steps after them answer later messages. */
async function twoTurns(endpoint: EndpointFixture): Promise<void> {
  await newChatThread();
  await sendChat('@agent first question: why does the alpha test fail?', endpoint.model);
  await sendChat('@agent second question: what about beta?', endpoint.model);
}

describe('/compact and restore', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('with review "never", compacts at once with the instructions and reports tokens before → after', async () => {
    endpoint = await useScriptedEndpoint(roleScript({ agent: [reply('Alpha fails on the umlaut.'), reply('Beta passes.')], summary: [reply(MODEL_SUMMARY)] }), {
      'compaction.review': 'never',
    });
    await twoTurns(endpoint);
    const { reply: shown } = await sendChat(`@agent /compact ${FOCUS}`, endpoint.model);

    const summaryCalls = endpoint.server.requests.filter(isSummaryRequest);
    assert.equal(summaryCalls.length, 1, 'expected exactly one summarizer call');
    assert.ok(requestText(summaryCalls[0]).includes(FOCUS), 'the summarizer was not given the instructions');
    assert.ok(requestText(summaryCalls[0]).includes('first question: why does the alpha test fail?'), 'the summarizer did not see the history');
    const session = await activeSession();
    const compaction = compactionOnPath(session.log.path());
    assert.ok(compaction, `no compaction entry: ${pathSummary(session)}; reply: ${shown.text}`);
    assert.equal(compaction.instructions, FOCUS);
    assert.equal(compaction.auto, false);
    assert.equal(compaction.edited, false);
    assert.ok(compaction.summary.startsWith(MODEL_SUMMARY), 'the stored summary is not the model’s');
    assert.match(shown.text, /Compacted: [\d.k]+ → [\d.k]+ tokens\./);
    assert.ok(shown.buttons.includes('Restore pre-compaction branch'), 'no Restore pre-compaction branch button (the panel\'s words) after compacting');
  });

  it('with review "manual", opens the panel with a proposal and applies an edited summary', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [reply('Alpha fails on the umlaut.'), reply('Beta passes.'), reply('Continuing from the edited summary.')], summary: [reply(MODEL_SUMMARY)] }),
      { 'compaction.review': 'manual' },
    );
    await twoTurns(endpoint);
    const { reply: shown } = await sendChat(`@agent /compact ${FOCUS}`, endpoint.model);
    assert.match(shown.text, /Context & Compaction/);
    const api = await agentApi();
    const proposal = api.review.getState().proposal;
    assert.ok(proposal, 'no proposal is pending');
    assert.equal(proposal.instructions, FOCUS);
    assert.ok(proposal.summary.startsWith(MODEL_SUMMARY));
    const session = await activeSession();
    assert.equal(compactionOnPath(session.log.path()), undefined, 'manual review compacted before the person applied it');
    await waitFor('the Context & Compaction panel tab', () => (panelTabOpen() ? true : undefined));

    const edited = proposal.summary.replace('## Next steps\n', '## Next steps\n- EDITED: check the umlaut mapping in slugify.mjs first.\n');
    await api.review.apply(proposal.id, edited, true);
    const compaction = compactionOnPath(session.log.path());
    assert.ok(compaction, `no compaction after apply: ${pathSummary(session)}`);
    assert.equal(compaction.edited, true);
    assert.equal(compaction.summary, edited);
    assert.equal(api.review.getState().proposal, undefined, 'the proposal is still pending after apply');

    await sendChat('@agent go on', endpoint.model);
    const next = messagesOf(agentRequests(endpoint.server).at(-1));
    assert.ok(String(next[1]?.content).startsWith(SUMMARY_PREFIX));
    assert.ok(String(next[1]?.content).includes('EDITED: check the umlaut mapping'), 'the next request does not carry the edited summary');
    assert.deepEqual(validateChatMessages(next), []);
  });

  it('restoring before a compaction sends the full earlier context again and keeps the compacted branch', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [reply('Alpha fails on the umlaut.'), reply('Beta passes.'), reply('Back on the full history.')], summary: [reply(MODEL_SUMMARY)] }),
      { 'compaction.review': 'never' },
    );
    await twoTurns(endpoint);
    await sendChat('@agent /compact', endpoint.model);
    const session = await activeSession();
    const compaction = compactionOnPath(session.log.path());
    assert.ok(compaction, `no compaction: ${pathSummary(session)}`);
    assert.equal(session.log.leafId, compaction.id);

    await vscode.commands.executeCommand('compactionAgent.restorePreCompactionBranch', compaction.id);
    // The new branch forks at the compaction's parent and ends with the restore marker (nothing was made after it).
    const restored = session.log.path();
    assert.equal(restored.at(-2)?.id, compaction.parentId, 'the branch does not fork at the compaction’s parent');
    assert.equal(restored.at(-1)?.type, 'label');
    assert.ok(session.log.tree.get(compaction.id), 'the compacted branch was dropped');
    assert.equal(compactionOnPath(session.log.path()), undefined);

    const { reply: shown } = await sendChat('@agent continue', endpoint.model);
    assert.match(shown.text, /Restored the full history from before that compaction/);
    const next = messagesOf(agentRequests(endpoint.server).at(-1));
    const text = requestText(agentRequests(endpoint.server).at(-1));
    assert.ok(!text.includes(SUMMARY_PREFIX), 'the restored context still carries the summary');
    assert.deepEqual(
      next.map((message) => message.role),
      ['system', 'user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.ok(text.includes('first question: why does the alpha test fail?') && text.includes('Alpha fails on the umlaut.'));
    assert.deepEqual(validateChatMessages(next), []);
    // Both branches stay in the tree: the compaction's branch is one of the leaves.
    assert.ok(session.log.tree.leaves().some((leaf) => leaf.id === compaction.id), 'the compacted branch is no longer a leaf of the tree');
  });
});
