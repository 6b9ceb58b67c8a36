// The delegate tool in the real extension host: a sub-task runs in a child session; only its answer reaches the chat's model.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { reply, toolCalls } from '../support/scriptedSteps';
import { activeSession, agentApi, waitFor } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { messagesOf, requestText, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { writeWorkspaceFiles } from './support/workspaceFiles';

const MARKER = 'DELEGATED-FILE-CONTENT-7781';

describe('sub-agents', () => {
  let endpoint: EndpointFixture | undefined;
  let removeFiles: (() => void) | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
    removeFiles?.();
    removeFiles = undefined;
  });

  it('delegate runs the sub-task in a child session listed as a sub-task, and returns only its answer', async () => {
    removeFiles = writeWorkspaceFiles({ 'delegation/settings.ts': `// ${MARKER}\nexport const port = 8080;\n` });
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [
          toolCalls([{ name: 'delegate', arguments: { task: 'Find the port in delegation/settings.ts.' } }]),
          toolCalls([{ name: 'read_file', arguments: { path: 'delegation/settings.ts' } }]),
          reply('The port is 8080 (delegation/settings.ts, line 2).'),
          reply('It is 8080.'),
        ],
      }),
    );
    await newChatThread();
    const { reply: shown } = await sendChat('@agent which port? delegate it', endpoint.model);
    const requests = endpoint.server.requests;
    // Parent, child, child, parent: the child's first request carries only its task and read-only tools.
    const child = requests[1];
    const childTools = ((child?.body as { tools?: Array<{ function: { name: string } }> } | undefined)?.tools ?? []).map((tool) => tool.function.name).sort();
    assert.deepEqual(childTools, ['find_files', 'list_dir', 'read_file', 'search_text']);
    assert.ok(!requestText(child).includes('which port? delegate it'), 'the child saw the parent conversation');
    const last = requests[3];
    const tool = messagesOf(last).find((message) => message.role === 'tool');
    assert.match(String(tool?.content), /^The port is 8080/);
    assert.ok(!requestText(last).includes(MARKER), 'what the child read reached the parent');

    assert.ok(shown.buttons.includes('Open sub-task session'), `buttons: ${shown.buttons.join(', ')}`);
    assert.ok(shown.progress.some((line) => line.startsWith('Sub-task: read_file')), `progress: ${shown.progress.join(' | ')}`);
    const parent = await activeSession();
    const result = parent.log.path().find((entry) => entry.type === 'toolResult');
    assert.ok(result?.type === 'toolResult' && result.subagent, 'the tool result names no child session');
    const childId = result.subagent.sessionId;
    const api = await agentApi();
    const record = (await api.sessions.store.list()).find((candidate) => candidate.id === childId);
    assert.equal(record?.parentId, parent.id);

    await vscode.commands.executeCommand('compactionAgent.openSession', childId);
    const opened = await waitFor('the child session active', () => (api.sessions.active?.id === childId ? api.sessions.active : undefined));
    assert.ok(JSON.stringify(opened.log.path()).includes(MARKER), 'the child session does not hold its exploration');
    assert.deepEqual(opened.log.header.parent, { sessionId: parent.id, toolCallId: result.toolCallId });
  });
});
