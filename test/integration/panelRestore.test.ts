// After a window reload VS Code hands the extension its restored panel: the extension must take it over.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { agentApi } from './support/agentApi';

describe('panel restore after a reload', () => {
  it('takes over the restored panel with the real, CSP-protected panel page', async () => {
    const api = await agentApi();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const restored = vscode.window.createWebviewPanel('compactionAgent.compactionPanel', 'Context & Compaction', vscode.ViewColumn.One, {});
    api.panel.restore(restored);
    assert.match(restored.webview.html, /Content-Security-Policy/);
    assert.match(restored.webview.html, /panel\.js/);
    assert.equal(restored.webview.options.enableScripts, true);
    // A second restore while one panel is open is refused (closed), so there is never a duplicate.
    const duplicate = vscode.window.createWebviewPanel('compactionAgent.compactionPanel', 'Context & Compaction', vscode.ViewColumn.One, {});
    let closed = false;
    duplicate.onDidDispose(() => (closed = true));
    api.panel.restore(duplicate);
    assert.equal(closed, true);
    restored.dispose();
  });
});
