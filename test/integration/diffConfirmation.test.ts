// The confirmation before a file change or command: VS Code's inline chat confirmation (Allow / Skip) with the diff editor open; Reject / Accept outside a chat.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConfirmRequest } from '../../src/core/tools/workspaceAccess';
import { externalTools } from '../../src/vscode/tools/externalTools';
import { reply, toolCalls } from '../support/scriptedSteps';
import { activeSession, agentApi, applySettings, BASE_SETTINGS, waitFor } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { workspaceRoot, writeWorkspaceFiles } from './support/workspaceFiles';

const SCHEME = 'compaction-agent-proposed';

function openDiff(): vscode.TabInputTextDiff | undefined {
  for (const tab of vscode.window.tabGroups.all.flatMap((group) => group.tabs)) {
    if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === SCHEME) return tab.input;
  }
  return undefined;
}

async function textOf(uri: vscode.Uri): Promise<string> {
  return (await vscode.workspace.openTextDocument(uri)).getText();
}

/** Asks, waits for the diff, checks both sides, then answers with `commands` (the quick pick may open a moment later). */
async function answer(request: ConfirmRequest & { before: string; after: string }, ...commands: string[]): Promise<boolean> {
  const api = await agentApi();
  let settled: boolean | undefined;
  const asked = api.confirmChange(request).then((value) => (settled = value));
  const diff = await waitFor('the diff editor', openDiff);
  assert.equal(await textOf(diff.original), request.before);
  assert.equal(await textOf(diff.modified), request.after);
  await waitFor('an answer', async () => {
    for (const command of commands) {
      await vscode.commands.executeCommand(command);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    return settled;
  });
  await waitFor('the diff to close', () => (openDiff() ? undefined : true));
  return asked;
}

describe('diff confirmation', () => {
  let restore: (() => Promise<void>) | undefined;
  const file = (): string => path.join(workspaceRoot(), 'src', 'confirmDemo.ts');

  beforeEach(async () => {
    restore = await applySettings({ ...BASE_SETTINGS, 'tools.requireConfirmation': true });
  });

  afterEach(async () => {
    await restore?.();
    restore = undefined;
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });

  it('shows an edit as a diff and resolves true when accepted', async () => {
    const accepted = await answer({ kind: 'edit', path: file(), before: 'const a = 1;\nconst b = 2;\n', after: 'const a = 1;\nconst b = 3;\n' }, 'workbench.action.focusQuickOpen', 'quickInput.last', 'workbench.action.acceptSelectedQuickOpenItem');
    assert.equal(accepted, true);
  });

  it('rejects when Enter is pressed on the preselected row (Reject comes first)', async () => {
    const accepted = await answer({ kind: 'edit', path: file(), before: 'const a = 1;\n', after: 'const a = 2;\n' }, 'workbench.action.acceptSelectedQuickOpenItem');
    assert.equal(accepted, false);
  });

  it('shows a new file against an empty side and resolves false when dismissed', async () => {
    const accepted = await answer({ kind: 'write', path: file(), created: true, before: '', after: 'export const created = true;\n' }, 'workbench.action.closeQuickOpen');
    assert.equal(accepted, false);
  });

  it('rejects and closes the diff when the request is cancelled', async () => {
    const api = await agentApi();
    const abort = new AbortController();
    const asked = api.confirmChange({ kind: 'write', path: file(), created: false, before: 'old\n', after: 'new\n' }, abort.signal);
    await waitFor('the diff editor', openDiff);
    abort.abort();
    assert.equal(await asked, false);
    await waitFor('the diff to close', () => (openDiff() ? undefined : true));
  });

  it('asks nothing when confirmations are off', async () => {
    await restore?.();
    restore = await applySettings({ ...BASE_SETTINGS });
    const api = await agentApi();
    assert.equal(await api.confirmChange({ kind: 'edit', path: file(), before: 'x', after: 'y' }), true);
    assert.equal(openDiff(), undefined);
  });
});

describe('inline chat confirmation', () => {
  let endpoint: EndpointFixture | undefined;
  let removeFiles: (() => void) | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
    removeFiles?.();
    removeFiles = undefined;
  });

  it('an edit asks in the chat with the diff open; Skip keeps the file and tells the model', async function () {
    this.timeout(120_000);
    const relative = 'src/inlineSkip.ts';
    const before = 'export const level = 1;\n';
    removeFiles = writeWorkspaceFiles({ [relative]: before });
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [toolCalls([{ id: 'call_edit', name: 'edit_file', arguments: { path: relative, oldText: 'level = 1', newText: 'level = 2' } }]), reply('Left the file as it was.')] }),
      { 'tools.requireConfirmation': true },
    );
    const api = await agentApi();
    assert.ok(
      !externalTools().some((tool) => tool.name.startsWith('compactionAgent_')),
      "@agent offers its own confirmation tools to the model among VS Code's tools",
    );
    await newChatThread();
    const sending = sendChat('@agent raise the level', endpoint.model);
    const asked = await waitFor('the inline confirmation of the edit', () => api.pendingConfirmations.titles.find((title) => title.includes('inlineSkip.ts')));
    assert.match(asked, /compactionAgent_approveFileChange/);
    const diff = await waitFor('the diff editor beside the confirmation', openDiff);
    assert.equal(await textOf(diff.modified), 'export const level = 2;\n');
    // The chat's own Skip action on the pending confirmation (the "Skip" button in the chat).
    await waitFor('the confirmation to be answered', async () => {
      if (api.pendingConfirmations.titles.length === 0) return true;
      await vscode.commands.executeCommand('workbench.action.chat.skipTool');
      await new Promise((resolve) => setTimeout(resolve, 200));
      return undefined;
    });
    const sent = await sending;
    assert.match(sent.reply.text, /Left the file as it was\./);
    assert.equal(fs.readFileSync(path.join(workspaceRoot(), relative), 'utf8'), before, 'Skip changed the file');
    const result = (await activeSession()).log.path().find((entry) => entry.type === 'toolResult' && entry.toolCallId === 'call_edit');
    assert.ok(result?.type === 'toolResult', 'the skipped call has no result');
    assert.equal(result.isError, true);
    assert.match(result.content, /declined|skipped/i);
    await waitFor('the diff to close', () => (openDiff() ? undefined : true));
  });

  it('a command asks in the chat and runs once allowed', async function () {
    this.timeout(120_000);
    endpoint = await useScriptedEndpoint(
      roleScript({ agent: [toolCalls([{ id: 'call_echo', name: 'run_command', arguments: { command: 'echo allowed-inline' } }]), reply('Ran it.')] }),
      { 'tools.requireConfirmation': true },
    );
    const api = await agentApi();
    await newChatThread();
    const sending = sendChat('@agent run echo', endpoint.model);
    await waitFor('the inline confirmation of the command', () => api.pendingConfirmations.titles.find((title) => title.includes('allowed-inline')));
    await waitFor('the confirmation to be answered', async () => {
      if (api.pendingConfirmations.titles.length === 0) return true;
      await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
      await new Promise((resolve) => setTimeout(resolve, 200));
      return undefined;
    });
    await sending;
    const result = (await activeSession()).log.path().find((entry) => entry.type === 'toolResult' && entry.toolCallId === 'call_echo');
    assert.ok(result?.type === 'toolResult', 'the allowed call has no result');
    assert.match(result.content, /allowed-inline/);
  });
});
