// run_command in the visible "@agent" terminal (tools.runCommandsInTerminal): output and exit code reach the model.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { reply, toolCalls } from '../support/scriptedSteps';
import { newChatThread, sendChat } from './support/chatDriver';
import { messagesOf, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';

describe('commands in the @agent terminal', () => {
  let endpoint: EndpointFixture | undefined;

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
    for (const terminal of vscode.window.terminals) if (terminal.name === '@agent') terminal.dispose();
  });

  it('runs the command in a terminal named @agent (or says it ran hidden) and returns its output and exit code', async () => {
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [
          toolCalls([{ name: 'run_command', arguments: { command: 'printf "hello-%s\\n" terminal; exit 3' } }]),
          reply('Ran it.'),
        ],
      }),
      { 'tools.runCommandsInTerminal': true },
    );
    await newChatThread();
    const opened: string[] = [];
    const watching = vscode.window.onDidOpenTerminal((terminal) => {
      opened.push(terminal.name);
    });
    try {
      await sendChat('@agent run the greeting', endpoint.model);
    } finally {
      watching.dispose();
    }
    const tool = messagesOf(endpoint.server.requests[1]).find((message) => message.role === 'tool');
    const output = String(tool?.content);
    assert.match(output, /hello-terminal/, output);
    assert.match(output, /\[exit code 3\]/, output);
    assert.ok(!output.includes(String.fromCharCode(27)), `escape sequences reached the model: ${JSON.stringify(output)}`);
    // `exit 3` ends the terminal's shell, so the terminal may be gone by now: it must have been opened.
    assert.ok(opened.includes('@agent'), `no @agent terminal was opened (opened: ${opened.join(', ')})`);
    const hidden = output.includes('[ran without the @agent terminal');
    console.log(`    the command ran ${hidden ? 'hidden (no shell integration here)' : 'in the @agent terminal through shell integration'}`);
  });
});
