// Restore Checkpoint in the real extension host: files and conversation back to before a request, and a restore undone.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentSession } from '../../src/vscode/sessions/agentSession';
import { restoreCheckpoint } from '../../src/vscode/sessions/checkpointRestore';
import { reply, toolCalls } from '../support/scriptedSteps';
import { activeSession, agentApi, waitFor } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { messagesOf, requestText, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { pathSummary } from './support/sessionChecks';
import { workspaceRoot, writeWorkspaceFiles } from './support/workspaceFiles';

const FIRST = 'checkpoint turn one: bump and create';
const SECOND = 'checkpoint turn two: bump again';
const ORIGINAL = 'export const level = 1;\n';
let runs = 0;
let dir = 'checkpoints-0';

function file(relative: string): string | null {
  const absolute = path.join(workspaceRoot(), relative);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
}

function requestEntryId(session: AgentSession, text: string): string {
  const entry = session.log.path().find((candidate) => candidate.type === 'user' && candidate.text === text);
  assert.ok(entry, `no request "${text}" on the path: ${pathSummary(session)}`);
  return entry.id;
}

/** Runs the command and picks the `index`-th item of the "what should go back" quick pick. */
async function restoreWith(entryId: string, index: number): Promise<void> {
  const running = vscode.commands.executeCommand('compactionAgent.restoreCheckpoint', entryId);
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (let step = 0; step < index; step++) await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
  await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  await running;
}

describe('restore checkpoint', () => {
  let endpoint: EndpointFixture | undefined;
  let removeFiles: (() => void) | undefined;

  /** The agent steps of the two editing turns, then `more`; `between` runs after the first turn (a /compact, say). */
  async function twoEditingTurns(more: ReturnType<typeof reply>[], between?: (fixture: EndpointFixture) => Promise<void>): Promise<EndpointFixture> {
    const fixture = await useScriptedEndpoint(
      roleScript({
        agent: [
          toolCalls([{ name: 'edit_file', arguments: { path: `${dir}/level.ts`, oldText: 'level = 1', newText: 'level = 2' } }]),
          toolCalls([{ name: 'write_file', arguments: { path: `${dir}/created.ts`, content: 'export const created = true;\n' } }]),
          reply('Bumped and created.'),
          toolCalls([{ name: 'edit_file', arguments: { path: `${dir}/level.ts`, oldText: 'level = 2', newText: 'level = 3' } }]),
          reply('Bumped again.'),
          ...more,
        ],
      }),
      { 'compaction.review': 'never' },
    );
    endpoint = fixture;
    await newChatThread();
    await sendChat(`@agent ${FIRST}`, fixture.model);
    await between?.(fixture);
    await sendChat(`@agent ${SECOND}`, fixture.model);
    assert.equal(file(`${dir}/level.ts`), 'export const level = 3;\n');
    assert.equal(file(`${dir}/created.ts`), 'export const created = true;\n');
    return fixture;
  }

  beforeEach(() => {
    // A folder per test: documents VS Code still holds from an earlier test cannot stand in for these files.
    dir = `checkpoints-${++runs}`;
    removeFiles = writeWorkspaceFiles({ [`${dir}/level.ts`]: ORIGINAL });
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await endpoint?.dispose();
    endpoint = undefined;
    removeFiles?.();
    removeFiles = undefined;
    await vscode.workspace.fs.delete(vscode.Uri.file(path.join(workspaceRoot(), dir)), { recursive: true }).then(undefined, () => undefined);
  });

  it('files and conversation: both go back to before the second request, and the next request starts from there', async () => {
    const fixture = await twoEditingTurns([reply('Starting over from the restored files.')]);
    const server = fixture.server;
    const session = await activeSession();
    // The first request is the session's first entry: "files and conversation" is offered only when there is an earlier point.
    const target = requestEntryId(session, SECOND);
    await restoreWith(target, 0);
    await waitFor('level.ts back to 2', () => (file(`${dir}/level.ts`) === 'export const level = 2;\n' ? true : undefined));
    assert.equal(file(`${dir}/created.ts`), 'export const created = true;\n');
    const onPath = session.log.path();
    assert.ok(!onPath.some((entry) => entry.type === 'user' && entry.text === SECOND), `the second request is still on the branch: ${pathSummary(session)}`);
    assert.equal(onPath.at(-1)?.type, 'fileRestore');

    const before = server.requests.length;
    await sendChat('@agent after the restore', fixture.model);
    const sent = server.requests[before];
    const text = requestText(sent);
    assert.ok(text.includes(FIRST) && !text.includes(SECOND), `the request after the restore: ${text.slice(0, 600)}`);
    const last = messagesOf(sent).at(-1);
    assert.match(String(last?.content), /restored these files to an earlier checkpoint[\s\S]*level\.ts/);
  });

  it("a command's changes go back too: the command snapshots recorded what run_command changed", async () => {
    const script = `const f=require('fs');f.writeFileSync('${dir}/level.ts','export const level = 9;\\n');f.writeFileSync('${dir}/generated.ts','export const generated = 1;\\n')`;
    endpoint = await useScriptedEndpoint(roleScript({ agent: [toolCalls([{ name: 'run_command', arguments: { command: `node -e "${script}"` } }]), reply('Generated.')] }));
    await newChatThread();
    await sendChat('@agent checkpoint command: generate', endpoint.model);
    assert.equal(file(`${dir}/level.ts`), 'export const level = 9;\n');
    const session = await activeSession();
    const result = session.log.path().find((entry) => entry.type === 'toolResult');
    assert.ok(result?.type === 'toolResult' && result.fileChanges?.some((change) => change.path.endsWith('generated.ts')), `the command's changes were not recorded: ${JSON.stringify(result)}`);
    await vscode.commands.executeCommand('compactionAgent.restoreCheckpoint', requestEntryId(session, 'checkpoint command: generate'), 'files');
    await waitFor('level.ts back to the original', () => (file(`${dir}/level.ts`) === ORIGINAL ? true : undefined));
    await waitFor('generated.ts deleted', () => (file(`${dir}/generated.ts`) === null ? true : undefined));
  });

  it('files only, to before the first request: edited files get their old text, created files go, and the restore can be undone', async () => {
    await twoEditingTurns([]);
    const session = await activeSession();
    await vscode.commands.executeCommand('compactionAgent.restoreCheckpoint', requestEntryId(session, FIRST), 'files');
    await waitFor('level.ts back to the original', () => (file(`${dir}/level.ts`) === ORIGINAL ? true : undefined));
    await waitFor('created.ts deleted', () => (file(`${dir}/created.ts`) === null ? true : undefined));
    assert.ok(session.log.path().some((entry) => entry.type === 'user' && entry.text === SECOND), 'a files-only restore keeps the conversation');

    const restore = session.log.path().at(-1);
    assert.equal(restore?.type, 'fileRestore');
    await restoreWith(restore?.id ?? '', 0);
    await waitFor('level.ts forward to 3 again', () => (file(`${dir}/level.ts`) === 'export const level = 3;\n' ? true : undefined));
    assert.equal(file(`${dir}/created.ts`), 'export const created = true;\n');
  });

  it('restore pre-compaction with files: the conversation and the files go back to the compaction point', async () => {
    await twoEditingTurns([], async (fixture) => {
      await sendChat('@agent /compact', fixture.model);
    });
    const session = await activeSession();
    const compaction = session.log.path().find((entry) => entry.type === 'compaction');
    assert.ok(compaction, `no compaction: ${pathSummary(session)}`);
    const running = vscode.commands.executeCommand('compactionAgent.restorePreCompactionBranch', compaction.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await running;
    await waitFor('level.ts back to the compaction point', () => (file(`${dir}/level.ts`) === 'export const level = 2;\n' ? true : undefined));
    assert.equal(file(`${dir}/created.ts`), 'export const created = true;\n');
    const onPath = session.log.path();
    assert.ok(!onPath.some((entry) => entry.type === 'compaction'), `the compaction is still on the branch: ${pathSummary(session)}`);
    assert.ok(!onPath.some((entry) => entry.type === 'user' && entry.text === SECOND), 'the turn after the compaction came back although the files went back');
    assert.ok(onPath.some((entry) => entry.type === 'user' && entry.text === FIRST), 'the history before the compaction is missing');
    assert.ok(session.log.tree.get(compaction.id), 'the compacted branch was dropped');
  });

  it('restore-while-running-restores-every-file', async function () {
    this.timeout(120_000);
    const write = (name: string): Parameters<typeof toolCalls>[0] => [{ name: 'write_file', arguments: { path: `${dir}/${name}`, content: `export const ${name.replace('.ts', '')} = true;\n` } }];
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [
          toolCalls(write('a.ts')),
          // The request goes on writing while the person is asked whether to stop it.
          toolCalls(write('b.ts'), { text: 'Now the second module, then the third one.', chunkDelayMs: 150 }),
          toolCalls(write('c.ts')),
          { kind: 'hang', text: 'Checking the three modules…' },
          reply('Should not be asked.'),
        ],
      }),
    );
    await newChatThread();
    const running = sendChat('@agent restore while running: write the three modules', endpoint.model);
    const recorded = (session: AgentSession, name: string): boolean =>
      session.log.tree.entries.some((entry) => entry.type === 'toolResult' && entry.fileChanges?.some((change) => change.path.endsWith(`${dir}/${name}`)));
    const session = await waitFor('a.ts written by the running request', async () => {
      const active = (await agentApi()).sessions.active;
      return active && recorded(active, 'a.ts') ? active : undefined;
    });
    let asked = 0;
    const message = await restoreCheckpoint(session, requestEntryId(session, 'restore while running: write the three modules'), 'files', async () => {
      asked++;
      // The person answers after the request wrote the other two files (lasting evidence: their results on the log).
      await waitFor('c.ts written by the running request', () => (recorded(session, 'c.ts') ? true : undefined));
      return true;
    });
    await running;
    assert.equal(asked, 1, 'the person was not asked before the request was stopped');
    for (const name of ['a.ts', 'b.ts', 'c.ts']) assert.equal(file(`${dir}/${name}`), null, `${name} is still there after the restore said: ${message}`);
    assert.match(message ?? '', /Restored 3 files/);
    assert.equal(session.engine.state, 'idle');
  });
});
