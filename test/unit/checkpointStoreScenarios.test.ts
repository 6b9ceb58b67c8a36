// Command checkpoints across versions and between commands: a store written uncompressed by an earlier version still restores, and what changes between two commands (seen by the folder watch) is never taken as a command's.
import { existsSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { workspaceCommandSnapshots, type WorkspaceCommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import { applyFileRestore, checkpoints, planFileRestore } from '../../src/core/checkpoints/fileCheckpoints';
import { defaultSettings } from '../../src/core/settings/settings';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { recordingAccess } from '../support/agentWorkspace';
import { exactRestorePort } from '../support/exactRestorePort';

const fixture = useAgentFixture((ws) => {
  ws.write('notes.txt', 'first line\n');
  ws.write('src/deep/user.txt', 'the person wrote this\n');
  ws.write('src/deep/other.txt', 'another file\n');
  ws.write('.gitignore', 'build/\n');
});

const port = exactRestorePort(() => [fixture.ws.root]);

function snapshots(): WorkspaceCommandSnapshots {
  return workspaceCommandSnapshots({ roots: () => [fixture.ws.root], isTrusted: () => true, sessionsDir: fixture.session.dir });
}

function file(relative: string): string | null {
  const absolute = nodePath.join(fixture.ws.root, relative);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
}

async function commandTurn(snapshotter: WorkspaceCommandSnapshots, script: string): Promise<void> {
  const model = scriptedModel([{ toolCalls: [{ name: 'run_command', args: { command: `node -e ${JSON.stringify(script)}` } }] }, { text: 'Ran it.' }]);
  await collect(runAgent({ ...baseAgentOptions(fixture, model), workspace: recordingAccess(fixture.ws.root).access, settings: defaultSettings(), userText: 'run it', commandSnapshots: snapshotter }));
}

/** One command between two snapshots, with no turn snapshot before it: the snapshot before it is the watch's look. */
async function command(snapshotter: WorkspaceCommandSnapshots, run: () => void): Promise<string[]> {
  const target = { store: fixture.session.log.blobs, maxBytes: 1024 * 1024 };
  const pending = await snapshotter.before('command', target);
  run();
  const found = await pending.after();
  expect(found.gap).toBeUndefined();
  return found.changes.map((change) => change.path).sort();
}

describe('the checkpoint store across versions', () => {
  it('a checkpoint whose blobs an earlier version wrote uncompressed (<sha256>.txt) still restores', async () => {
    const snapshotter = snapshots();
    await commandTurn(snapshotter, "const f=require('fs');f.writeFileSync('notes.txt','rewritten\\n');f.rmSync('src/deep/other.txt')");
    await snapshotter.dispose();
    // The store as version 0.1 left it: every blob whole and uncompressed under <sha256>.txt.
    const blobs = fixture.session.log.blobs.dir;
    for (const name of readdirSync(blobs)) {
      const match = /^([0-9a-f]{64})\.br$/.exec(name);
      if (!match) continue;
      writeFileSync(nodePath.join(blobs, `${match[1]}.txt`), brotliDecompressSync(readFileSync(nodePath.join(blobs, name))));
      unlinkSync(nodePath.join(blobs, name));
    }
    expect(readdirSync(blobs).every((name) => name.endsWith('.txt'))).toBe(true);
    const log = fixture.session.log;
    const items = planFileRestore(log.path(), checkpoints(log.path()).at(-1)?.entryId ?? '') ?? [];
    const outcome = await applyFileRestore(items, port, log.blobs, [fixture.ws.root]);
    expect(outcome.failed).toEqual([]);
    expect(file('notes.txt')).toBe('first line\n');
    expect(file('src/deep/other.txt')).toBe('another file\n');
  });

  it('a restore whose blob is gone names the file and leaves it as it is', async () => {
    const snapshotter = snapshots();
    await commandTurn(snapshotter, "require('fs').writeFileSync('notes.txt','rewritten\\n')");
    await snapshotter.dispose();
    rmSync(fixture.session.log.blobs.dir, { recursive: true, force: true });
    const log = fixture.session.log;
    const items = planFileRestore(log.path(), checkpoints(log.path()).at(-1)?.entryId ?? '') ?? [];
    const outcome = await applyFileRestore(items, port, log.blobs, [fixture.ws.root]);
    expect(outcome.failed.map((failure) => failure.path)).toEqual(['notes.txt']);
    expect(JSON.stringify(outcome.failed)).toMatch(/not in the checkpoint store/);
    expect(file('notes.txt')).toBe('rewritten\n');
  });
});

describe('what changes between commands', () => {
  it('an edit, a new file, a deletion and a new folder made between commands are not taken as the next command’s', async () => {
    const snapshotter = snapshots();
    await snapshotter.turnStarted('turn', { store: fixture.session.log.blobs, maxBytes: 1024 * 1024 });
    const write = (relative: string, text: string): void => void fixture.ws.write(relative, text);
    expect(await command(snapshotter, () => write('notes.txt', 'one\n'))).toEqual(['notes.txt']);
    // The person edits a file in a nested folder (same length: only the watch or the stats tell).
    write('src/deep/user.txt', 'the person wrote THIS\n');
    expect(await command(snapshotter, () => write('made.txt', 'by the command\n'))).toEqual(['made.txt']);
    write('src/deep/fresh.txt', 'a new file\n');
    rmSync(nodePath.join(fixture.ws.root, 'src/deep/other.txt'));
    expect(await command(snapshotter, () => write('notes.txt', 'two\n'))).toEqual(['notes.txt']);
    write('src/new/inner/file.txt', 'in a new folder\n');
    expect(await command(snapshotter, () => write('made.txt', 'again\n'))).toEqual(['made.txt']);
    // And what a command does in a folder the person changed before it is still the command's.
    write('src/deep/user.txt', 'edited once more\n');
    expect(await command(snapshotter, () => write('src/deep/user.txt', 'by the command\n'))).toEqual(['src/deep/user.txt']);
    await snapshotter.dispose();
  });
});
