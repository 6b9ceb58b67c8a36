// What the user attaches and keeps, through the real Chat view: a #file, a selection and AGENTS.md reach the endpoint.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { reply } from '../support/scriptedSteps';
import { activeSession } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { messagesOf, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { workspaceRoot, writeWorkspaceFiles } from './support/workspaceFiles';

describe('chat attachments', () => {
  let endpoint: EndpointFixture | undefined;
  let removeFiles: (() => void) | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
    removeFiles?.();
    removeFiles = undefined;
  });

  it('sends an attached file, an attached selection and AGENTS.md to the endpoint, counted in the budget', async () => {
    removeFiles = writeWorkspaceFiles({
      'attached/notes.txt': 'alpha notes\nbeta notes\n',
      'attached/code.ts': 'const one = 1;\nconst two = 2;\nconst three = 3;\nconst four = 4;\n',
      'AGENTS.md': 'Answer in one short sentence.\n',
    });
    endpoint = await useScriptedEndpoint([reply('Seen the notes.')]);
    await newChatThread();
    const root = vscode.Uri.file(workspaceRoot());
    const notes = vscode.Uri.joinPath(root, 'attached/notes.txt');
    const code = vscode.Uri.joinPath(root, 'attached/code.ts');
    const selection = { uri: code, range: { startLineNumber: 2, startColumn: 1, endLineNumber: 3, endColumn: 17 } };

    const sent = await sendChat('@agent what do the attachments say?', endpoint.model, { attachFiles: [notes, selection] });
    assert.match(sent.reply.text, /Seen the notes\./);

    const messages = messagesOf(endpoint.server.requests[0]);
    const system = String(messages[0]?.content);
    assert.match(system, /<instructions file="AGENTS\.md">\nAnswer in one short sentence\.\n<\/instructions>/);
    const user = String(messages[1]?.content);
    assert.ok(user.startsWith('what do the attachments say?'), user);
    assert.ok(user.includes('<attachment label="attached/notes.txt">\nalpha notes\nbeta notes\n</attachment>'), user);
    assert.ok(user.includes('<attachment label="attached/code.ts, lines 2-3">\nconst two = 2;\nconst three = 3;\n</attachment>'), user);

    const session = await activeSession();
    const entry = session.log.path()[0];
    const labels = entry?.type === 'user' ? (entry.attachments ?? []).map((attachment) => attachment.label) : [];
    assert.ok(labels.includes('attached/notes.txt') && labels.includes('attached/code.ts, lines 2-3'), labels.join(', '));
    const budget = session.budgetView();
    assert.ok(budget && budget.breakdown.instructions > 0, `no instructions part in ${JSON.stringify(budget?.breakdown)}`);
  });
});
