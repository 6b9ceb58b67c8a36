// What the person sees follows the session the chat continues: after /new and a hand-off the status bar and panel show it at once, with its window; titles come from first requests; a restored branch asks in place.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Responder } from '../support/scriptedEndpoint';
import { reply, toolCalls } from '../support/scriptedSteps';
import type { AgentSession } from '../../src/vscode/sessions/agentSession';
import { ANSWER_RESTORED_BRANCH_COMMAND } from '../../src/vscode/chat/restoredBranchQuestion';
import { activeSession, agentApi, waitFor } from './support/agentApi';
import { newChatThread, resultSession, sendChat } from './support/chatDriver';
import { isSummaryRequest, messagesOf, useScriptedEndpoint, validSummary, type EndpointFixture } from './support/endpointFixture';
import { pathSummary } from './support/sessionChecks';
import { logLines, writeWorkspaceFiles } from './support/workspaceFiles';

/** What the status bar and panel showed each time the active session (or anything in it) changed. */
interface Seen {
  sessionId: string | undefined;
  status: string;
  window: number | undefined;
  windowSource: string | undefined;
  panelSession: string | undefined;
  panelNotice: string | undefined;
}

async function watchScreens(): Promise<{ seen: Seen[]; dispose: () => void }> {
  const api = await agentApi();
  const seen: Seen[] = [];
  const subscription = api.sessions.onDidChangeActive(() => {
    const active = api.sessions.active;
    const state = api.review.getState();
    seen.push({
      sessionId: active?.id,
      status: api.statusBar.text,
      window: active?.budgetView()?.contextWindow,
      windowSource: active?.model.windowSource,
      panelSession: state.session?.id,
      panelNotice: state.notice?.text,
    });
  });
  return {
    seen,
    dispose: () => {
      subscription.dispose();
    },
  };
}

/** Every screen shown while `session` was active names it with the endpoint's window (or says it is counting), never "no session". */
function assertFollowed(seen: readonly Seen[], session: AgentSession, window: number, what: string): void {
  const shown = seen.filter((entry) => entry.sessionId === session.id);
  assert.ok(shown.length > 0, `${what}: the status bar never showed the new session`);
  for (const entry of shown) {
    assert.doesNotMatch(entry.status, /no session yet/, `${what}: the status bar said there is no session: ${JSON.stringify(entry)}`);
    assert.notEqual(entry.windowSource, 'default', `${what}: the new session was measured against the assumed window: ${JSON.stringify(entry)}`);
    if (entry.window !== undefined) assert.equal(entry.window, window, `${what}: not the endpoint's window: ${JSON.stringify(entry)}`);
    assert.equal(entry.panelSession, session.id, `${what}: the panel showed another session: ${JSON.stringify(entry)}`);
  }
}

describe('the status bar and panel follow the session the chat continues', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('after /new and a hand-off: the new session at once, with the endpoint’s 8,000-token window and its reserve; no banner of the previous session; titles from first requests', async () => {
    // Settings a user who changed nothing has; the endpoint lists an 8,000-token window for its model.
    endpoint = await useScriptedEndpoint(
      (request) => (isSummaryRequest(request) ? reply(validSummary('Fix the slugify test.')) : reply('Noted.')),
      {},
      { listedWindow: 8000 },
    );
    const api = await agentApi();
    await newChatThread();
    await sendChat('@agent why does the slugify test fail?', endpoint.model);
    const first = await activeSession();
    const firstBudget = first.budgetView();
    assert.ok(firstBudget?.windowKnown && firstBudget.contextWindow === 8000, `the first session is not measured against the listed window: ${JSON.stringify(firstBudget)}`);
    assert.equal(first.title, 'why does the slugify test fail?');
    // A banner about the first session (Prune now with nothing to prune says so).
    await api.review.pruneNow();
    assert.ok(api.review.getState().notice, 'Prune now left no banner');

    const screens = await watchScreens();
    try {
      const started = await sendChat('@agent /new', endpoint.model);
      assert.match(started.reply.text, /Started a new session; your first request names it/);
      const second = await activeSession();
      assert.notEqual(second.id, first.id);
      assert.equal(resultSession(started.result)?.sessionId, second.id);
      assertFollowed(screens.seen, second, 8000, '/new');
      assert.match(api.statusBar.text, /^\$\(pie-chart\) ~?\d+% /, `after /new: ${api.statusBar.text}`);
      assert.equal(second.budgetView()?.reserved, firstBudget.reserved, 'the new session has another reserve than the same model’s');
      const panel = api.review.getState();
      assert.equal(panel.session?.id, second.id);
      assert.equal(panel.notice, undefined, `the new session's panel shows the previous session's banner: ${panel.notice?.text}`);
      assert.ok(screens.seen.filter((entry) => entry.sessionId === second.id).every((entry) => entry.panelNotice === undefined), 'a banner of the previous session was shown for the new one');
      assert.equal(second.title, 'New session');

      // Its first request names it, in the index too.
      await sendChat('@agent make slugify trim trailing dashes', endpoint.model);
      assert.equal(second.title, 'make slugify trim trailing dashes');
      const record = (await api.sessions.store.list()).find((entry) => entry.id === second.id);
      assert.equal(record?.title, 'make slugify trim trailing dashes');
      assert.equal(record?.untitled, undefined);

      // A hand-off (review "never" in these tests starts it at once): followed at once, titled after its source until its first request.
      const handedOff = await sendChat('@agent /handoff', endpoint.model);
      const third = await activeSession();
      assert.notEqual(third.id, second.id);
      assert.equal(resultSession(handedOff.result)?.sessionId, third.id);
      assertFollowed(screens.seen, third, 8000, '/handoff');
      assert.equal(third.budgetView()?.reserved, firstBudget.reserved);
      assert.equal(third.title, 'Continues “make slugify trim trailing dashes”');
      await sendChat('@agent now the docs', endpoint.model);
      assert.equal(third.title, 'now the docs');
      const handoffRecord = (await api.sessions.store.list()).find((entry) => entry.id === third.id);
      assert.equal(handoffRecord?.handoffFrom, second.id);
      assert.equal(handoffRecord?.title, 'now the docs');
    } finally {
      screens.dispose();
    }
  });

  it('Sessions… Rename shows at once in the panel and the index, and a renamed untitled session keeps its name', async () => {
    endpoint = await useScriptedEndpoint(() => reply('Noted.'), {}, { listedWindow: 8000 });
    const api = await agentApi();
    await newChatThread();
    await sendChat('@agent /new', endpoint.model);
    const session = await activeSession();
    await api.sessions.rename(session.id, 'Parser work');
    assert.equal(session.title, 'Parser work');
    assert.equal(api.review.getState().session?.title, 'Parser work');
    await sendChat('@agent first real request', endpoint.model);
    assert.equal(session.title, 'Parser work', 'the first request renamed a session the person had named');
  });
});

/** A 16k window with small reserves and no automatic pruning, so the second turn must compact (a prune by hand is still offered). */
const SMALL_WINDOW = {
  'context.windowTokens': 16000,
  'context.maxOutputTokens': 1024,
  'compaction.reserveTokens': 1024,
  'compaction.keepRecentTokens': 3000,
  'pruning.enabled': false,
  // What a prune by hand may take: every read but the newest few hundred tokens.
  'pruning.protectTurns': 0,
  'pruning.protectTokens': 600,
  'tools.outputMaxChars': 60000,
  'tools.outputMaxLines': 5000,
};

const NOTES = ['notes/a.txt', 'notes/b.txt', 'notes/c.txt', 'notes/d.txt'];
const AFTER_RESTORE = 'now list what the notes agree on';
const AFTER_RESTORE_ANSWER = 'The notes agree on the parser plan.';

/** Reads notes until the session has compacted once; after the restore, the request it asks about answers in one step. */
function notesScript(): Responder {
  let compacted = false;
  let reads = 0;
  return (request) => {
    if (isSummaryRequest(request)) {
      compacted = true;
      return reply(validSummary('Read the notes and report what they say.'));
    }
    const users = messagesOf(request).filter((message) => message.role === 'user');
    const content = users.at(-1)?.content;
    const last = typeof content === 'string' ? content : JSON.stringify(content ?? '');
    if (last.includes(AFTER_RESTORE)) return reply(AFTER_RESTORE_ANSWER, { usage: 'none' });
    if (users.length <= 1 && !last.includes('read the notes')) return reply('Ready.', { usage: 'none' });
    if (compacted || reads > 40) return reply('I read the notes.', { usage: 'none' });
    reads++;
    return toolCalls([{ id: `call_read_${reads}`, name: 'read_file', arguments: { path: NOTES[reads % NOTES.length] ?? 'notes/a.txt' } }], { usage: 'none' });
  };
}

describe('a request on a restored branch that would not fit asks in place', () => {
  let endpoint: EndpointFixture | undefined;
  let removeNotes: (() => void) | undefined;

  afterEach(async () => {
    removeNotes?.();
    removeNotes = undefined;
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('offers Compact now, Prune now and Stop in the running reply; Compact now compacts and the same request answers', async () => {
    removeNotes = writeWorkspaceFiles(Object.fromEntries(NOTES.map((file) => [file, logLines(file, 160)])));
    endpoint = await useScriptedEndpoint(notesScript(), SMALL_WINDOW);
    const api = await agentApi();
    await newChatThread();
    await sendChat('@agent hello', endpoint.model);
    await sendChat('@agent read the notes', endpoint.model);
    const session = await activeSession();
    const compaction = session.log.path().find((entry) => entry.type === 'compaction');
    assert.ok(compaction, `the notes did not need a compaction: ${pathSummary(session)}`);
    await api.review.restore(compaction.id);
    assert.equal(session.budgetView()?.autoCompactionPaused, true);
    assert.ok((session.budgetView()?.percent ?? 0) > 100, `the restored branch fits, so nothing would ask: ${session.budgetView()?.percent}%`);

    const sending = sendChat(`@agent ${AFTER_RESTORE}`, endpoint.model);
    const compactButton = await waitFor('the question’s Compact now button', () =>
      api.replies.last?.commands.find((command) => command.command === ANSWER_RESTORED_BRANCH_COMMAND && command.arguments?.[1] === 'compact'),
    );
    const shown = api.replies.last;
    assert.deepEqual(
      shown?.commands.filter((command) => command.command === ANSWER_RESTORED_BRANCH_COMMAND).map((command): unknown[] => [command.title, (command.arguments ?? [])[1]]),
      [
        ['Compact now', 'compact'],
        ['Prune now', 'prune'],
        ['Stop', 'stop'],
      ],
    );
    assert.match(shown?.text ?? '', /This branch was restored from before a compaction, so nothing is compacted without asking/);
    assert.deepEqual(api.restoredBranchQuestions.pending(session.id), [(compactButton.arguments ?? [])[0]]);
    const clicked: unknown[] = compactButton.arguments ?? [];
    await vscode.commands.executeCommand(compactButton.command, ...clicked);

    const { reply: answered, result } = await sending;
    assert.equal(result.errorDetails, undefined, `the request failed: ${answered.text}`);
    assert.match(answered.text, new RegExp(AFTER_RESTORE_ANSWER));
    assert.doesNotMatch(answered.text, /stopped|paused here until you decide/i);
    assert.deepEqual(api.restoredBranchQuestions.pending(session.id), []);
    const path = session.log.path();
    const request = path.findIndex((entry) => entry.type === 'user' && entry.text === AFTER_RESTORE);
    const compacted = path.findIndex((entry, index) => index > request && entry.type === 'compaction');
    assert.ok(request >= 0 && compacted > request, `no compaction in the request after the answer: ${pathSummary(session)}`);
    assert.equal(path.filter((entry) => entry.type === 'user' && entry.text === AFTER_RESTORE).length, 1, 'the request was sent twice');
    assert.equal(session.budgetView()?.autoCompactionPaused, undefined);

    // The button of the answered question does nothing more.
    await vscode.commands.executeCommand(compactButton.command, ...clicked);
    assert.equal(session.log.path().filter((entry) => entry.type === 'compaction').length, path.filter((entry) => entry.type === 'compaction').length);
  });
});
