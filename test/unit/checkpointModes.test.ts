// A file's mode is part of what a command checkpoint records: a deleted file comes back with its mode, a chmod alone is a change that is named and put back, and logs without modes still restore.
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { workspaceCommandSnapshots, type CommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import { applyFileRestore, changedSince, checkpoints, planFileRestore } from '../../src/core/checkpoints/fileCheckpoints';
import type { FileChange, SessionEntry, ToolResultEntry } from '../../src/core/session/entries';
import { validateEntry } from '../../src/core/session/entryValidation';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { recordingAccess } from '../support/agentWorkspace';
import { exactRestorePort } from '../support/exactRestorePort';

const fixture = useAgentFixture((ws) => {
  ws.write('.ssh/id_ed25519', 'PRIVATE KEY\n');
  ws.write('.env', 'TOKEN=secret\n');
  ws.write('deploy.sh', '#!/bin/sh\necho deploy\n');
  ws.write('notes.txt', 'plain\n');
  chmodSync(nodePath.join(ws.root, '.ssh/id_ed25519'), 0o600);
  chmodSync(nodePath.join(ws.root, '.env'), 0o600);
  chmodSync(nodePath.join(ws.root, 'deploy.sh'), 0o755);
  chmodSync(nodePath.join(ws.root, 'notes.txt'), 0o644);
});

const port = exactRestorePort(() => [fixture.ws.root]);

function modeOf(relative: string): number {
  return statSync(nodePath.join(fixture.ws.root, relative)).mode & 0o7777;
}

function snapshots(): CommandSnapshots {
  return workspaceCommandSnapshots({ roots: () => [fixture.ws.root], isTrusted: () => true, sessionsDir: fixture.session.dir });
}

async function commandTurn(script: string): Promise<ToolResultEntry> {
  const model = scriptedModel([{ toolCalls: [{ name: 'run_command', args: { command: `node -e ${JSON.stringify(script)}` } }] }, { text: 'Done.' }]);
  await collect(runAgent({ ...baseAgentOptions(fixture, model), workspace: recordingAccess(fixture.ws.root).access, userText: 'clean up', commandSnapshots: snapshots() }));
  const result = fixture.session.log.path().findLast((entry): entry is ToolResultEntry => entry.type === 'toolResult');
  if (!result) throw new Error('no tool result');
  return result;
}

function restoreItems(): ReturnType<typeof planFileRestore> & object {
  const path = fixture.session.log.path();
  return planFileRestore(path, checkpoints(path).at(-1)?.entryId ?? '') ?? [];
}

describe('file modes in command checkpoints', () => {
  it('restore-keeps-file-modes', async () => {
    const result = await commandTurn("const f=require('fs');f.rmSync('.ssh/id_ed25519');f.rmSync('.env');f.rmSync('deploy.sh');f.writeFileSync('notes.txt','rewritten\\n')");
    const changes = result.fileChanges ?? [];
    expect(changes.map((change) => [change.path, change.beforeMode, change.afterMode])).toEqual([
      ['.env', 0o600, undefined],
      ['.ssh/id_ed25519', 0o600, undefined],
      ['deploy.sh', 0o755, undefined],
      ['notes.txt', 0o644, 0o644],
    ]);
    expect(validateEntry(JSON.parse(JSON.stringify(result)) as unknown)).toBeDefined();
    const outcome = await applyFileRestore(restoreItems(), port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(outcome).toMatchObject({ failed: [], kept: [] });
    // A deleted key or .env comes back readable by its owner only, a script executable, as they were.
    expect(modeOf('.ssh/id_ed25519')).toBe(0o600);
    expect(modeOf('.env')).toBe(0o600);
    expect(modeOf('deploy.sh')).toBe(0o755);
    expect(modeOf('notes.txt')).toBe(0o644);
    // The restore records the modes it set, so undoing it puts them back too.
    expect(outcome.changes.find((change) => change.path === 'deploy.sh')).toMatchObject({ before: null, afterMode: 0o755 });
  });

  it('chmod-only-change-restorable', async () => {
    const result = await commandTurn("const f=require('fs');f.chmodSync('notes.txt',0o755);f.chmodSync('.env',0o644)");
    // Named as changes though no byte changed: the checkpoint lists them and a restore puts the modes back.
    expect((result.fileChanges ?? []).map((change) => [change.path, change.beforeMode, change.afterMode, change.before?.sha256 === change.after?.sha256])).toEqual([
      ['.env', 0o600, 0o644, true],
      ['notes.txt', 0o644, 0o755, true],
    ]);
    expect(checkpoints(fixture.session.log.path())[0]?.files.sort()).toEqual(['.env', 'notes.txt']);
    const items = restoreItems();
    expect(items.map((item) => item.path).sort()).toEqual(['.env', 'notes.txt']);
    expect(await changedSince(items, port, blobRefOf, [fixture.ws.root])).toEqual([]);
    const outcome = await applyFileRestore(items, port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(outcome).toMatchObject({ failed: [], kept: [] });
    expect(modeOf('.env')).toBe(0o600);
    expect(modeOf('notes.txt')).toBe(0o644);
    expect(statSync(nodePath.join(fixture.ws.root, '.env')).size).toBe('TOKEN=secret\n'.length);
  });

  it('a mode the person changed after the command is theirs: named as changed since, left as it is', async () => {
    await commandTurn("require('fs').writeFileSync('deploy.sh','#!/bin/sh\\necho changed\\n')");
    chmodSync(nodePath.join(fixture.ws.root, 'deploy.sh'), 0o700);
    const items = restoreItems();
    expect(await changedSince(items, port, blobRefOf, [fixture.ws.root])).toEqual(['deploy.sh']);
    const outcome = await applyFileRestore(items, port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(outcome.kept).toEqual(['deploy.sh']);
    expect(modeOf('deploy.sh')).toBe(0o700);
  });

  it('a restore run again after it was cut off: what it put back is not "changed since", and it completes', async () => {
    await commandTurn("const f=require('fs');f.rmSync('.env');f.writeFileSync('notes.txt','rewritten\\n');f.writeFileSync('made.txt','new\\n')");
    const items = restoreItems();
    expect(items).toHaveLength(3);
    // The first run restored one file, then the window was closed (nothing recorded yet).
    await applyFileRestore(items.filter((item) => item.path === 'notes.txt'), port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(await changedSince(items, port, blobRefOf, [fixture.ws.root])).toEqual([]);
    const outcome = await applyFileRestore(items, port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(outcome).toMatchObject({ failed: [], kept: [] });
    expect(modeOf('.env')).toBe(0o600);
  });

  it('a log written before modes were recorded still restores: a file keeps its mode, a new one gets the default', async () => {
    const result = await commandTurn("const f=require('fs');f.rmSync('.env');f.writeFileSync('deploy.sh','changed\\n')");
    const withoutModes = (result.fileChanges ?? []).map(({ beforeMode: _before, afterMode: _after, ...change }): FileChange => change);
    const entries = [
      { type: 'user', id: 'u', parentId: null, timestamp: 't', text: 'go' },
      { ...result, id: 'r', parentId: 'u', fileChanges: withoutModes },
    ] as SessionEntry[];
    for (const entry of entries) expect(validateEntry(JSON.parse(JSON.stringify(entry)) as unknown)).toBeDefined();
    const outcome = await applyFileRestore(planFileRestore(entries, 'u') ?? [], port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(outcome).toMatchObject({ failed: [], kept: [] });
    expect(modeOf('deploy.sh')).toBe(0o755);
    writeFileSync(nodePath.join(fixture.ws.root, 'probe'), '');
    expect(modeOf('.env')).toBe(modeOf('probe'));
  });

  it('a session naming a mode outside 0–0o7777 offers none of that call\'s changes for restore', () => {
    const change = { path: 'a', absolute: '/w/a', before: null, after: null, exact: true, beforeMode: 0o100644 };
    const checked = validateEntry({ type: 'toolResult', id: 'r', parentId: null, timestamp: 't', toolCallId: 'c', toolName: 'run_command', isError: false, content: '', fileChanges: [change] });
    expect('entry' in checked && checked.entry.type === 'toolResult' && checked.entry.fileChanges).toBe(undefined);
    expect(validateEntry({ type: 'fileRestore', id: 'f', parentId: null, timestamp: 't', targetId: 'u', changes: [{ ...change, beforeMode: 0o644, afterMode: -1 }] })).toHaveProperty('error');
  });
});
