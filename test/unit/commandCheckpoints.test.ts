// Command checkpoints: a shadow git repository in the extension's storage snapshots each run_command, so a restore undoes it.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import type { CommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import { shadowCommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import type { RestorePort } from '../../src/core/checkpoints/fileCheckpoints';
import { applyFileRestore, changedSince, checkpoints, planFileRestore } from '../../src/core/checkpoints/fileCheckpoints';
import { nodeGitRunner } from '../../src/core/checkpoints/gitRunner';
import type { ToolResultEntry } from '../../src/core/session/entries';
import { validateEntry } from '../../src/core/session/entryValidation';
import { defaultSettings } from '../../src/core/settings/settings';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { toHistoryView } from '../../src/core/views/historyView';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture((ws) => {
  ws.write('notes.txt', 'first line\n');
  ws.write('gone.txt', 'about to be deleted\n');
  ws.write('.gitignore', 'build/\n');
  ws.write('build/keep.txt', 'ignored output\n');
});

function storage(): string {
  return nodePath.join(fixture.ws.base, 'storage');
}

function file(relative: string): string | null {
  const absolute = nodePath.join(fixture.ws.root, relative);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
}

const port: RestorePort = {
  read: (absolute) => Promise.resolve(existsSync(absolute) ? readFileSync(absolute, 'utf8') : null),
  write: async (absolute, text) => {
    await mkdir(nodePath.dirname(absolute), { recursive: true });
    writeFileSync(absolute, text);
  },
  remove: (absolute) => {
    rmSync(absolute);
    return Promise.resolve();
  },
};

/** A shell command that edits, creates and deletes files, and writes into an ignored folder. */
const COMMAND = `node -e "const f=require('fs');f.writeFileSync('notes.txt','rewritten by a formatter\\n');f.writeFileSync('generated.ts','export const x = 1;\\n');f.rmSync('gone.txt');f.writeFileSync('build/out.txt','ignored\\n')"`;

async function commandTurn(snapshots: CommandSnapshots, command = COMMAND): Promise<void> {
  const model = scriptedModel([{ toolCalls: [{ name: 'run_command', args: { command } }] }, { text: 'Ran it.' }]);
  await collect(runAgent({ ...baseAgentOptions(fixture, model), userText: 'format the code', commandSnapshots: snapshots }));
}

function commandResult(): ToolResultEntry {
  const entry = fixture.session.log.path().find((candidate): candidate is ToolResultEntry => candidate.type === 'toolResult');
  if (!entry) throw new Error('no tool result');
  return entry;
}

async function restoreToRequest(): Promise<Awaited<ReturnType<typeof applyFileRestore>>> {
  const log = fixture.session.log;
  const point = checkpoints(log.path())[0];
  const items = planFileRestore(log.path(), point?.entryId ?? '') ?? [];
  return applyFileRestore(items, port, log.blobs, [fixture.ws.root]);
}

describe('command checkpoints', () => {
  it('restore-puts-back-what-a-command-changed', async () => {
    await commandTurn(shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root]));
    expect(file('notes.txt')).toBe('rewritten by a formatter\n');
    const result = commandResult();
    expect(result.checkpointGap).toBeUndefined();
    expect(validateEntry(JSON.parse(JSON.stringify(result)) as unknown)).toBeDefined();
    // Ignored files (build/) are not snapshotted; the three the command touched are.
    expect((result.fileChanges ?? []).map((change) => change.path).sort()).toEqual(['generated.ts', 'gone.txt', 'notes.txt']);
    const point = checkpoints(fixture.session.log.path())[0];
    expect(point?.fileCount).toBe(3);
    expect(point?.unrecorded.count).toBe(0);
    const outcome = await restoreToRequest();
    expect(outcome.failed).toEqual([]);
    expect(file('notes.txt')).toBe('first line\n');
    expect(file('gone.txt')).toBe('about to be deleted\n');
    expect(file('generated.ts')).toBeNull();
    expect(file('build/out.txt')).toBe('ignored\n');
    // The shadow repository lives in the storage folder: the workspace gets no .git of its own.
    expect(existsSync(nodePath.join(fixture.ws.root, '.git'))).toBe(false);
    expect(readdirSync(nodePath.join(storage(), 'shadow')).some((name) => name.endsWith('.git'))).toBe(true);
  });

  it('each turn is snapshotted too, named by its request entry, and the command after it still sees only its own changes', async () => {
    const snapshots = shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root]);
    await commandTurn(snapshots);
    const request = fixture.session.log.path().find((entry) => entry.type === 'user');
    const gitDir = nodePath.join(storage(), 'shadow', readdirSync(nodePath.join(storage(), 'shadow'))[0] ?? '');
    const messages = execFileSync('git', [`--git-dir=${gitDir}`, 'log', '--format=%s', 'refs/heads/snapshots'], { encoding: 'utf8' }).trim().split('\n').reverse();
    expect(messages[0]).toBe(`turn ${request?.id ?? ''}`);
    expect(messages.slice(1).map((message) => message.split(':')[0])).toEqual(['before', 'after']);
    expect((commandResult().fileChanges ?? []).map((change) => change.path).sort()).toEqual(['generated.ts', 'gone.txt', 'notes.txt']);
  });

  it("leaves the workspace's own git repository alone", async () => {
    execFileSync('git', ['init', '--quiet', fixture.ws.root]);
    const gitFiles = (): string[] => readdirSync(nodePath.join(fixture.ws.root, '.git')).sort();
    const before = gitFiles();
    await commandTurn(shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root]));
    expect(gitFiles()).toEqual(before);
    expect(existsSync(nodePath.join(fixture.ws.root, '.git', 'index'))).toBe(false);
    expect(commandResult().fileChanges?.map((change) => change.path).sort()).toEqual(['generated.ts', 'gone.txt', 'notes.txt']);
  });

  it('without git, the checkpoint says what cannot be restored, and the command still runs', async () => {
    await commandTurn(shadowCommandSnapshots(nodeGitRunner(nodePath.join(fixture.ws.base, 'no-such-git')), storage(), () => [fixture.ws.root]));
    expect(file('notes.txt')).toBe('rewritten by a formatter\n');
    expect(commandResult().checkpointGap).toBe('git is not installed (or not on PATH)');
    const point = checkpoints(fixture.session.log.path())[0];
    expect(point?.unrecorded).toEqual({ count: 1, reasons: ['git is not installed (or not on PATH)'] });
    expect(toHistoryView(fixture.session.log.path()).checkpoints?.[0]?.unrecorded).toBe('cannot restore what 1 command since changed (git is not installed (or not on PATH))');
    expect(planFileRestore(fixture.session.log.path(), point?.entryId ?? '')).toEqual([]);
  });

  it('a file a command grows above snapshotMaxBytes still goes back: its old text is stored, the new one only hashed', async () => {
    const big = 'x'.repeat(2048);
    const command = `node -e "require('fs').writeFileSync('notes.txt','${big}')"`;
    const model = scriptedModel([{ toolCalls: [{ name: 'run_command', args: { command } }] }, { text: 'Ran it.' }]);
    const settings = defaultSettings();
    await collect(runAgent({ ...baseAgentOptions(fixture, model), settings: { ...settings, tools: { ...settings.tools, snapshotMaxBytes: 1024 } }, userText: 'grow it', commandSnapshots: shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root]) }));
    const change = commandResult().fileChanges?.[0];
    expect(change).toMatchObject({ path: 'notes.txt', before: blobRefOf('first line\n'), after: blobRefOf(big) });
    await expect(fixture.session.log.blobs.read(blobRefOf(big))).rejects.toThrow();
    const items = planFileRestore(fixture.session.log.path(), checkpoints(fixture.session.log.path())[0]?.entryId ?? '') ?? [];
    // The hash of what the command left matches the file: nobody changed it since, so no overwrite warning.
    expect(await changedSince(items, port, blobRefOf)).toEqual([]);
    expect((await restoreToRequest()).failed).toEqual([]);
    expect(file('notes.txt')).toBe('first line\n');
  });

  it('a symbolic link a command changes is named as not restorable, never written back as a file', async () => {
    symlinkSync('notes.txt', nodePath.join(fixture.ws.root, 'link.txt'));
    const command = `node -e "const f=require('fs');f.rmSync('link.txt');f.symlinkSync('gone.txt','link.txt');f.writeFileSync('notes.txt','changed\\n')"`;
    await commandTurn(shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root]), command);
    expect(commandResult().content).toContain('link.txt was changed by the command without a checkpoint snapshot (it is a symbolic link or a nested repository)');
    const outcome = await restoreToRequest();
    expect(file('notes.txt')).toBe('first line\n');
    expect(outcome.failed.map((failure) => failure.path)).toEqual(['link.txt']);
    expect(lstatSync(nodePath.join(fixture.ws.root, 'link.txt')).isSymbolicLink()).toBe(true);
  });

  it('a storage folder that cannot hold the shadow repository never stops the command', async () => {
    writeFileSync(storage(), 'a file where the storage folder should be');
    await commandTurn(shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root]));
    expect(file('notes.txt')).toBe('rewritten by a formatter\n');
    expect(commandResult().isError).toBe(false);
    expect(commandResult().checkpointGap).toMatch(/ENOTDIR|EEXIST|not a directory/i);
  });

  it('a workspace above the size cap is not snapshotted, and the checkpoint says why', async () => {
    await commandTurn(shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root], { maxFiles: 2, maxBytes: 1024 * 1024 }));
    expect(commandResult().checkpointGap).toMatch(/has 3 files not excluded by \.gitignore, above the 2/);
    expect(checkpoints(fixture.session.log.path())[0]?.unrecorded.count).toBe(1);
  });

  it('a binary file a command changes is named as not restorable; the text files still go back', async () => {
    mkdirSync(nodePath.join(fixture.ws.root, 'img'));
    writeFileSync(nodePath.join(fixture.ws.root, 'img', 'logo.bin'), Buffer.from([0, 1, 2, 3]));
    const command = `node -e "const f=require('fs');f.writeFileSync('img/logo.bin',Buffer.from([0,9,9]));f.writeFileSync('notes.txt','changed\\n')"`;
    await commandTurn(shadowCommandSnapshots(nodeGitRunner(), storage(), () => [fixture.ws.root]), command);
    expect(commandResult().content).toContain('img/logo.bin was changed by the command without a checkpoint snapshot (it is not text)');
    const outcome = await restoreToRequest();
    expect(file('notes.txt')).toBe('first line\n');
    expect(outcome.failed.map((failure) => failure.path)).toEqual(['img/logo.bin']);
  });
});
