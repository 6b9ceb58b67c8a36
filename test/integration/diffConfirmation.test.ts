// The confirmation before a file change: VS Code's diff editor (current left, proposed right), Accept / Reject, closed afterwards.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConfirmRequest } from '../../src/core/tools/workspaceAccess';
import { agentApi, applySettings, BASE_SETTINGS, waitFor } from './support/agentApi';
import { workspaceRoot } from './support/workspaceFiles';

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

/** Asks, waits for the diff, checks both sides, then answers with `command` (the quick pick may open a moment later). */
async function answer(request: ConfirmRequest & { before: string; after: string }, command: string): Promise<boolean> {
  const api = await agentApi();
  let settled: boolean | undefined;
  const asked = api.confirmChange(request).then((value) => (settled = value));
  const diff = await waitFor('the diff editor', openDiff);
  assert.equal(await textOf(diff.original), request.before);
  assert.equal(await textOf(diff.modified), request.after);
  await waitFor('an answer', async () => {
    await vscode.commands.executeCommand(command);
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
    const accepted = await answer({ kind: 'edit', path: file(), before: 'const a = 1;\nconst b = 2;\n', after: 'const a = 1;\nconst b = 3;\n' }, 'workbench.action.acceptSelectedQuickOpenItem');
    assert.equal(accepted, true);
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
