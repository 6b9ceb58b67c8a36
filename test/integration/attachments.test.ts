// What the user attaches and keeps, through the real Chat view: a #file, a selection and AGENTS.md reach the endpoint.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { reply } from '../support/scriptedSteps';
import { activeSession } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { messagesOf, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { workspaceRoot, writeWorkspaceFiles } from './support/workspaceFiles';

/** A real 3×2 PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAC0lEQVR4nGNgwAQAABQAAX3+Hu4AAAAASUVORK5CYII=';

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

  it('sends a PNG queued with Attach Image as an image part to a model that takes images, and only its name to one that does not', async () => {
    const png = Buffer.from(PNG_BASE64, 'base64');
    const root = vscode.Uri.file(workspaceRoot());
    const image = vscode.Uri.joinPath(root, 'attached/tiny.png');
    await vscode.workspace.fs.writeFile(image, png);
    removeFiles = () => void vscode.workspace.fs.delete(vscode.Uri.joinPath(root, 'attached'), { recursive: true });

    endpoint = await useScriptedEndpoint([reply('A tiny image.'), reply('Only its name.')], { 'endpoint.imageInput': 'always' });
    await newChatThread();
    // VS Code's stable API hands chat-input images to no extension (ChatReferenceBinaryData is proposed): the command queues them.
    await vscode.commands.executeCommand('compactionAgent.attachImage', [image]);
    const first = await sendChat('@agent what is in this image?', endpoint.model);
    const user = messagesOf(endpoint.server.requests[0]).at(-1);
    assert.ok(Array.isArray(user?.content), `the user message is not multi-part: ${JSON.stringify(user?.content).slice(0, 300)}; the reply: ${first.reply.text.slice(0, 300)}`);
    const parts = user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    assert.match(parts[0]?.text ?? '', /what is in this image\?[\s\S]*\[image attached: tiny\.png, 3×2\]/);
    assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${PNG_BASE64}`);
    const session = await activeSession();
    const entry = session.log.path().find((candidate) => candidate.type === 'user');
    assert.deepEqual(entry?.type === 'user' ? entry.images?.map((stored) => [stored.name, stored.width, stored.height]) : undefined, [['tiny.png', 3, 2]]);
    await endpoint.dispose();

    endpoint = await useScriptedEndpoint([reply('Only its name.')], { 'endpoint.imageInput': 'never' });
    await newChatThread();
    await vscode.commands.executeCommand('compactionAgent.attachImage', [image]);
    const sent = await sendChat('@agent and now?', endpoint.model);
    const text = messagesOf(endpoint.server.requests[0]).at(-1)?.content;
    assert.equal(typeof text, 'string');
    assert.match(String(text), /\[image attached: tiny\.png, 3×2\]/);
    assert.match(sent.reply.text, /tiny\.png is kept with your message, but the model gets only a line naming it/);
  });
});
