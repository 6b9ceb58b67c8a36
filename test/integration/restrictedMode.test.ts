// Restricted Mode in the real extension host: an @agent request (a first one and a plain second question) starts no child process at all.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { reply, toolCalls } from '../support/scriptedSteps';
import { activeSession } from './support/agentApi';
import { newChatThread, sendChat } from './support/chatDriver';
import { messagesOf, useScriptedEndpoint, type EndpointFixture } from './support/endpointFixture';
import { roleScript } from './support/roleScript';
import { workspaceRoot } from './support/workspaceFiles';

/** Every way node starts a program, replaced on node's one child_process module object (shared by every extension in this host). */
const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/** Counts the child processes started while `work` runs. */
async function countChildProcesses(work: () => Promise<void>): Promise<string[]> {
  const shared = createRequire(__filename)('node:child_process') as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map(STARTERS.map((name) => [name, shared[name]]));
  const started: string[] = [];
  for (const name of STARTERS) {
    const original = originals.get(name) as (...args: unknown[]) => unknown;
    shared[name] = (...args: unknown[]) => {
      started.push(`${name}(${JSON.stringify(args[0])})`);
      return original(...args);
    };
  }
  try {
    await work();
  } finally {
    for (const name of STARTERS) shared[name] = originals.get(name) as (...args: unknown[]) => unknown;
  }
  return started;
}

describe('Restricted Mode', () => {
  let endpoint: EndpointFixture | undefined;

  before(function () {
    // The host tier runs this suite a second time in a window whose folder is not trusted; in the trusted run it is skipped.
    if (vscode.workspace.isTrusted) this.skip();
  });

  afterEach(async () => {
    await endpoint?.dispose();
    endpoint = undefined;
  });

  it('an @agent request, and a plain second question, start no child process: no snapshot, no command, no git', async () => {
    const marker = path.join(workspaceRoot(), 'RESTRICTED-COMMAND-RAN');
    endpoint = await useScriptedEndpoint(
      roleScript({
        agent: [
          toolCalls([
            { name: 'run_command', arguments: { command: `touch ${JSON.stringify(marker)}` } },
            { name: 'list_dir', arguments: { path: '.' } },
          ]),
          reply('Could not run it here.'),
          reply('A plain second answer.'),
        ],
      }),
    );
    assert.equal(vscode.workspace.isTrusted, false);
    await newChatThread();
    const started = await countChildProcesses(async () => {
      await sendChat('@agent run the setup script', endpoint?.model ?? '');
      await sendChat('@agent and what is in the folder?', endpoint?.model ?? '');
    });
    assert.deepEqual(started, [], `child processes started during @agent requests in Restricted Mode: ${started.join(', ')}`);
    assert.equal(existsSync(marker), false, 'the command ran in Restricted Mode');
    const tool = messagesOf(endpoint.server.requests[1]).find((message) => message.role === 'tool' && String(message.content).includes('Restricted Mode'));
    assert.ok(tool, `the model was not told the command was refused: ${JSON.stringify(messagesOf(endpoint.server.requests[1]).slice(-3))}`);
    // Nothing was snapshotted: no file change is recorded, and no checkpoint index was written.
    const session = await activeSession();
    assert.ok(!session.log.path().some((entry) => entry.type === 'toolResult' && (entry.fileChanges?.length ?? 0) > 0), 'a snapshot recorded file changes in Restricted Mode');
  });
});
