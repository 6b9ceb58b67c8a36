// Issue 5 in the real host: a small window fills with tool output; old outputs are pruned, then older turns compacted, and the next request stays valid.
import * as assert from 'node:assert/strict';
import { prunePlaceholder, SUMMARY_PREFIX } from '../../src/core/context/contextMarkers';
import type { ToolResultEntry } from '../../src/core/session/entries';
import type { Responder } from '../support/scriptedEndpoint';
import { reply, toolCalls } from '../support/scriptedSteps';
import type { AgentSession } from '../../src/vscode/sessions/agentSession';
import { validateChatMessages } from '../support/validateChatMessages';
import { activeSession } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { agentRequests, isSummaryRequest, messagesOf, requestText, useScriptedEndpoint, validSummary, type EndpointFixture } from './support/endpointFixture';
import { pathSummary, verifySessionFile } from './support/sessionChecks';
import { logLines, writeWorkspaceFiles } from './support/workspaceFiles';

/** A 16k window with small reserves and pruning thresholds, so a few files fill it. */
const SMALL_WINDOW = {
  'context.windowTokens': 16000,
  'context.maxOutputTokens': 1024,
  'compaction.reserveTokens': 1024,
  'compaction.keepRecentTokens': 5000,
  'pruning.protectTokens': 600,
  'pruning.minimumTokens': 300,
  'pruning.protectTurns': 0,
  // The build log stays: only the file reads are prunable, so pruning alone cannot keep up.
  'pruning.protectedTools': ['run_command'],
  'tools.outputMaxChars': 60000,
  'tools.outputMaxLines': 5000,
};

const NOTES = ['notes/a.txt', 'notes/b.txt', 'notes/c.txt', 'notes/d.txt'];
/** Reads stop here even without a compaction, so a broken run ends with a clear failure, not a loop. */
const MAX_READS = 40;

/**
 * The "model": answers the first turn, then runs the build log and keeps reading notes until the
 * extension has compacted, then answers. Usage is not reported, so the budget is our own exact count.
 */
function pressureScript(): Responder {
  let agentCalls = 0;
  let compacted = false;
  return (request) => {
    if (isSummaryRequest(request)) {
      compacted = true;
      return reply(validSummary('Read the build log and the notes, then report what they say.'));
    }
    agentCalls++;
    if (agentCalls === 1) return reply('Ready when you are.', { usage: 'none' });
    if (agentCalls === 2) return toolCalls([{ id: 'call_log', name: 'run_command', arguments: { command: 'cat build.log' } }], { usage: 'none' });
    if (compacted || agentCalls > MAX_READS) return reply('I read the build log and the notes.', { usage: 'none' });
    const file = NOTES[agentCalls % NOTES.length] ?? 'notes/a.txt';
    return toolCalls([{ id: `call_read_${agentCalls}`, name: 'read_file', arguments: { path: file } }], { usage: 'none' });
  };
}

/** Build-log lines that fill the window up to `headroom` tokens below the usable budget. */
async function buildLogFilling(session: AgentSession, headroom: number): Promise<string> {
  const budget = session.budgetView();
  assert.ok(budget, 'the budget is unknown after the first turn');
  const counter = await session.ensureCounter();
  const target = budget.usable - budget.used - headroom;
  const sample = logLines('build', 100);
  const perLine = counter.countText(sample) / 100;
  return logLines('build', Math.max(10, Math.floor(target / perLine)));
}

describe('context pressure (issue 5)', () => {
  let endpoint: EndpointFixture | undefined;
  let removeFiles: (() => void) | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    removeFiles?.();
    endpoint = undefined;
    removeFiles = undefined;
  });

  it('prunes old tool outputs, then compacts, and the next request carries summary and placeholders without orphans', async function () {
    this.timeout(120_000);
    const notes = Object.fromEntries(NOTES.map((name) => [name, logLines(name.slice(6, 7), 30)]));
    removeFiles = writeWorkspaceFiles(notes);
    endpoint = await useScriptedEndpoint(pressureScript(), SMALL_WINDOW);
    await newChatThread();
    await sendChat('@agent I will ask you to read some files.', endpoint.model);
    const session = await activeSession();
    // Sized from the real fixed prompt (system + every tool definition in this host), so the reads tip it over.
    const removeLog = writeWorkspaceFiles({ 'build.log': await buildLogFilling(session, 1500) });
    const previousRemove = removeFiles;
    removeFiles = () => {
      previousRemove();
      removeLog();
    };

    const answer = await sendChat('@agent read build.log, then the notes until you have them all', endpoint.model);
    assert.match(answer.reply.text, /I read the build log and the notes\./);
    assert.match(answer.reply.text, /Pruned \d+ old tool output/, 'the chat did not say it pruned');
    assert.match(answer.reply.text, /Compacted the conversation: [\d.k]+ → [\d.k]+ tokens/, 'the chat did not report the compaction');
    const path = session.log.path();
    const firstPrune = path.findIndex((entry) => entry.type === 'prune');
    const compactionIndex = path.findIndex((entry) => entry.type === 'compaction');
    assert.ok(firstPrune >= 0 && compactionIndex > firstPrune, `expected prune entries, then a compaction: ${pathSummary(session)}`);
    const compaction = path[compactionIndex];
    assert.ok(compaction?.type === 'compaction');
    assert.ok(compaction.auto, 'the compaction was not marked automatic');
    assert.ok(compaction.tokensAfter < compaction.tokensBefore, `the compaction did not shrink: ${pathSummary(session)}`);

    // The call after the compaction: system prompt, then the summary, then the kept steps.
    const sent = agentRequests(endpoint.server);
    const last = sent.at(-1);
    const messages = messagesOf(last);
    assert.equal(messages[0]?.role, 'system');
    assert.equal(messages[1]?.role, 'user');
    const summary = String(messages[1]?.content);
    assert.ok(summary.startsWith(SUMMARY_PREFIX), `the second message is not the summary: ${summary.slice(0, 120)}`);
    assert.ok(summary.includes('Read the build log and the notes'), 'the summary text is missing');
    assert.ok(!requestText(last).includes('build 0001:'), 'the compacted build log was still sent');

    // Pruned outputs that survived the cut are sent as placeholders, never in full.
    const prunedIds = new Set(path.flatMap((entry) => (entry.type === 'prune' ? entry.toolResultIds : [])));
    const sentIds = new Set(messages.flatMap((message) => (message.tool_call_id ? [message.tool_call_id] : [])));
    const prunedSent = path.filter((entry): entry is ToolResultEntry => entry.type === 'toolResult' && prunedIds.has(entry.id) && sentIds.has(entry.toolCallId));
    assert.ok(prunedSent.length > 0, `no pruned output was in the kept part: ${pathSummary(session)}`);
    for (const entry of prunedSent) {
      const toolMessage = messages.find((message) => message.tool_call_id === entry.toolCallId);
      assert.equal(toolMessage?.content, prunePlaceholder(entry));
    }
    for (const request of sent) assert.deepEqual(validateChatMessages(messagesOf(request)), [], 'a request the endpoint got was invalid');
    const report = await verifySessionFile(session.log.file);
    assert.equal(report.ok, true, JSON.stringify(report));
  });
});
