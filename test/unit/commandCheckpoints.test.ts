// Command checkpoints: our own snapshot of the folder (no git, no program) before and after each run_command, so a restore undoes exactly what it changed.
import { existsSync, lstatSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import type { CommandSnapshots, EditorSaves, WorkspaceSnapshotOptions } from '../../src/core/checkpoints/commandSnapshots';
import { indexFileOf, workspaceCommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import { applyFileRestore, changedSince, checkpoints, planFileRestore } from '../../src/core/checkpoints/fileCheckpoints';
import type { ToolResultEntry } from '../../src/core/session/entries';
import { validateEntry } from '../../src/core/session/entryValidation';
import { defaultSettings } from '../../src/core/settings/settings';
import { blobRefOf, blobRefOfBytes } from '../../src/core/storage/blobStore';
import { toHistoryView } from '../../src/core/views/historyView';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { recordingAccess } from '../support/agentWorkspace';
import { exactRestorePort } from '../support/exactRestorePort';

const fixture = useAgentFixture((ws) => {
  ws.write('notes.txt', 'first line\n');
  ws.write('gone.txt', 'about to be deleted\n');
  ws.write('.gitignore', 'build/\n.env\nsecrets/\n');
  ws.write('build/keep.txt', 'ignored output\n');
  ws.write('.env', 'TOKEN=do-not-lose\n');
  ws.write('secrets/id_rsa', 'PRIVATE KEY\n');
});

const port = exactRestorePort(() => [fixture.ws.root]);

function snapshots(extra: Partial<WorkspaceSnapshotOptions> = {}): CommandSnapshots & { flush(): Promise<void> } {
  return workspaceCommandSnapshots({ roots: () => [fixture.ws.root], isTrusted: () => true, sessionsDir: fixture.session.dir, ...extra });
}

function file(relative: string): string | null {
  const absolute = nodePath.join(fixture.ws.root, relative);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
}

function bytes(relative: string): Buffer | null {
  const absolute = nodePath.join(fixture.ws.root, relative);
  return existsSync(absolute) ? readFileSync(absolute) : null;
}

/** A shell command that edits, creates and deletes files, and writes into an ignored folder. */
const COMMAND = `node -e "const f=require('fs');f.writeFileSync('notes.txt','rewritten by a formatter\\n');f.writeFileSync('generated.ts','export const x = 1;\\n');f.rmSync('gone.txt');f.writeFileSync('build/out.txt','ignored\\n')"`;

/** `node -e` of a script given as text (quoted for the shell). */
function nodeCommand(script: string): string {
  return `node -e ${JSON.stringify(script)}`;
}

async function commandTurn(snapshotter: CommandSnapshots, command = COMMAND, settings = defaultSettings(), trusted = true): Promise<void> {
  const model = scriptedModel([{ toolCalls: [{ name: 'run_command', args: { command } }] }, { text: 'Ran it.' }]);
  await collect(runAgent({ ...baseAgentOptions(fixture, model), workspace: recordingAccess(fixture.ws.root, { trusted }).access, settings, userText: 'format the code', commandSnapshots: snapshotter }));
}

function commandResult(): ToolResultEntry {
  const entry = fixture.session.log.path().findLast((candidate): candidate is ToolResultEntry => candidate.type === 'toolResult');
  if (!entry) throw new Error('no tool result');
  return entry;
}

async function restoreToRequest(): Promise<Awaited<ReturnType<typeof applyFileRestore>>> {
  const log = fixture.session.log;
  const point = checkpoints(log.path()).at(-1);
  const items = planFileRestore(log.path(), point?.entryId ?? '') ?? [];
  return applyFileRestore(items, port, log.blobs, [fixture.ws.root]);
}

describe('command checkpoints', () => {
  it('restore-puts-back-what-a-command-changed', async () => {
    const snapshotter = snapshots();
    await commandTurn(snapshotter);
    expect(file('notes.txt')).toBe('rewritten by a formatter\n');
    const result = commandResult();
    expect(result.checkpointGap).toBeUndefined();
    expect(validateEntry(JSON.parse(JSON.stringify(result)) as unknown)).toBeDefined();
    // Ignored files (build/) are not snapshotted; the three the command touched are.
    expect((result.fileChanges ?? []).map((change) => change.path).sort()).toEqual(['generated.ts', 'gone.txt', 'notes.txt']);
    expect(result.fileChanges?.every((change) => change.exact === true)).toBe(true);
    const point = checkpoints(fixture.session.log.path())[0];
    expect(point?.fileCount).toBe(3);
    expect(point?.unrecorded.count).toBe(0);
    const outcome = await restoreToRequest();
    expect(outcome.failed).toEqual([]);
    expect(file('notes.txt')).toBe('first line\n');
    expect(file('gone.txt')).toBe('about to be deleted\n');
    expect(file('generated.ts')).toBeNull();
    expect(file('build/out.txt')).toBe('ignored\n');
    // No repository anywhere: the workspace gets no .git, the storage holds blobs and one stat index.
    expect(existsSync(nodePath.join(fixture.ws.root, '.git'))).toBe(false);
    await snapshotter.flush();
    expect(existsSync(indexFileOf(fixture.session.dir, fixture.ws.root))).toBe(true);
    expect(readdirSync(fixture.session.dir).some((name) => name.includes('shadow'))).toBe(false);
  });

  it('the turn snapshot primes the index; the command after it still sees only its own changes, and an unchanged file is not stored twice', async () => {
    const snapshotter = snapshots();
    await commandTurn(snapshotter);
    const blobs = readdirSync(fixture.session.log.blobs.dir).length;
    await commandTurn(snapshotter, nodeCommand("require('fs').writeFileSync('notes.txt','third\\n')"));
    expect((commandResult().fileChanges ?? []).map((change) => change.path)).toEqual(['notes.txt']);
    // One new content (the new notes.txt) and nothing else, however many files the folder holds.
    expect(readdirSync(fixture.session.log.blobs.dir).length).toBe(blobs + 1);
  });

  it('a command that removes .gitignore does not make the files it ignored look created: a restore deletes neither .env nor secrets/id_rsa', async () => {
    await commandTurn(snapshots(), nodeCommand("const f=require('fs');f.rmSync('.gitignore');f.writeFileSync('.env','TOKEN=changed-by-command\\n');f.writeFileSync('made.txt','new\\n')"));
    expect((commandResult().fileChanges ?? []).map((change) => change.path).sort()).toEqual(['.gitignore', 'made.txt']);
    const outcome = await restoreToRequest();
    expect(outcome.failed).toEqual([]);
    expect(file('.gitignore')).toBe('build/\n.env\nsecrets/\n');
    expect(file('made.txt')).toBeNull();
    expect(file('.env')).toBe('TOKEN=changed-by-command\n');
    expect(file('secrets/id_rsa')).toBe('PRIVATE KEY\n');
  });

  it('a command that swaps .gitignore (a branch checkout) is judged by the rules from before it', async () => {
    await commandTurn(snapshots(), nodeCommand("const f=require('fs');f.writeFileSync('.gitignore','notes.txt\\n');f.writeFileSync('notes.txt','edited\\n');f.writeFileSync('secrets/new_key','x\\n')"));
    expect((commandResult().fileChanges ?? []).map((change) => change.path).sort()).toEqual(['.gitignore', 'notes.txt']);
    await restoreToRequest();
    expect(file('notes.txt')).toBe('first line\n');
    expect(file('secrets/new_key')).toBe('x\n');
    expect(file('secrets/id_rsa')).toBe('PRIVATE KEY\n');
  });

  it('bytes come back exactly: CRLF, UTF-16 with its mark, a name that is not UTF-8, a binary file', async () => {
    const rawName = Buffer.concat([Buffer.from(nodePath.join(fixture.ws.root, 'caf')), Buffer.from([0xe9]), Buffer.from('.txt')]);
    writeFileSync(rawName, 'latin-1 name\n');
    writeFileSync(nodePath.join(fixture.ws.root, 'crlf.txt'), 'a\r\nb\r\nmixed\n');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\r\n', 'utf16le')]);
    writeFileSync(nodePath.join(fixture.ws.root, 'utf16.txt'), utf16);
    writeFileSync(nodePath.join(fixture.ws.root, 'logo.bin'), Buffer.from([0, 1, 2, 255]));
    const script = `const f=require('fs');f.writeFileSync('crlf.txt','a\\nb\\n');f.writeFileSync('utf16.txt','plain');f.writeFileSync('logo.bin',Buffer.from([9]));f.writeFileSync(Buffer.from(${JSON.stringify(rawName.toString('hex'))},'hex'),'rewritten')`;
    await commandTurn(snapshots(), nodeCommand(script));
    const changes = commandResult().fileChanges ?? [];
    expect(changes.map((change) => change.path).sort()).toEqual(['caf\uFFFD.txt', 'crlf.txt', 'logo.bin', 'utf16.txt']);
    expect(changes.find((change) => change.path === 'caf\uFFFD.txt')?.absoluteBytes).toBe(rawName.toString('base64'));
    for (const change of changes) expect(validateEntry({ type: 'toolResult', id: 'r', parentId: null, timestamp: 't', toolCallId: 'c', toolName: 'run_command', isError: false, content: '', fileChanges: [change] })).not.toHaveProperty('error');
    // Nobody changed them since: no false "changed since".
    const items = planFileRestore(fixture.session.log.path(), checkpoints(fixture.session.log.path())[0]?.entryId ?? '') ?? [];
    expect(await changedSince(items, port, blobRefOf, [fixture.ws.root])).toEqual([]);
    const outcome = await restoreToRequest();
    expect(outcome).toMatchObject({ failed: [], kept: [] });
    expect(bytes('crlf.txt')).toEqual(Buffer.from('a\r\nb\r\nmixed\n'));
    expect(bytes('utf16.txt')).toEqual(utf16);
    expect(bytes('logo.bin')).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(readFileSync(rawName, 'utf8')).toBe('latin-1 name\n');
  });

  it('edits inside a nested repository are recorded; its .git is never read, written or recorded', async () => {
    fixture.ws.write('vendor/lib/.git/config', '[core]\n\tfsmonitor = touch FSMONITOR-RAN\n');
    fixture.ws.write('vendor/lib/.git/hooks/pre-commit', '#!/bin/sh\ntouch HOOK-RAN\n');
    fixture.ws.write('vendor/lib/.gitattributes', '* filter=evil\n');
    fixture.ws.write('vendor/lib/src.c', 'int x;\n');
    await commandTurn(snapshots(), nodeCommand("const f=require('fs');f.writeFileSync('vendor/lib/src.c','int y;\\n');f.writeFileSync('vendor/lib/.git/config','changed')"));
    expect((commandResult().fileChanges ?? []).map((change) => change.path)).toEqual(['vendor/lib/src.c']);
    await restoreToRequest();
    expect(file('vendor/lib/src.c')).toBe('int x;\n');
    expect(file('vendor/lib/.git/config')).toBe('changed');
    expect(existsSync(nodePath.join(fixture.ws.root, 'vendor/lib/HOOK-RAN'))).toBe(false);
    expect(existsSync(nodePath.join(fixture.ws.root, 'vendor/lib/FSMONITOR-RAN'))).toBe(false);
  });

  it('in Restricted Mode no folder is walked or read for a command, and no snapshot is taken at the turn', async () => {
    await commandTurn(snapshots({ isTrusted: () => false }), COMMAND, defaultSettings(), false);
    expect(commandResult().content).toMatch(/Restricted Mode/);
    expect(commandResult().fileChanges).toBeUndefined();
    expect(existsSync(fixture.session.log.blobs.dir) ? readdirSync(fixture.session.log.blobs.dir) : []).toEqual([]);
  });

  it('a file the person saves in the editor while the command runs is theirs: named, left out, never reverted', async () => {
    const saves: EditorSaves = { watch: () => () => [nodePath.join(fixture.ws.root, 'notes.txt')] };
    await commandTurn(snapshots({ saves }), nodeCommand("const f=require('fs');f.writeFileSync('notes.txt','typed by the person\\n');f.writeFileSync('generated.ts','x\\n')"));
    const result = commandResult();
    expect((result.fileChanges ?? []).map((change) => change.path)).toEqual(['generated.ts']);
    expect(result.content).toContain('notes.txt was saved in the editor while the command ran');
    expect(result.checkpointGap).toMatch(/saved in the editor while it ran, left as they are: notes\.txt/);
    await restoreToRequest();
    expect(file('notes.txt')).toBe('typed by the person\n');
    expect(file('generated.ts')).toBeNull();
  });

  it('a restore never deletes or rewrites a file whose content is no longer what the command left: it names it', async () => {
    await commandTurn(snapshots());
    writeFileSync(nodePath.join(fixture.ws.root, 'generated.ts'), 'the person kept working here\n');
    writeFileSync(nodePath.join(fixture.ws.root, 'notes.txt'), 'and here\n');
    const outcome = await restoreToRequest();
    expect(outcome.kept.sort()).toEqual(['generated.ts', 'notes.txt']);
    expect(file('generated.ts')).toBe('the person kept working here\n');
    expect(file('notes.txt')).toBe('and here\n');
    expect(file('gone.txt')).toBe('about to be deleted\n');
  });

  it('a file a command grows above snapshotMaxBytes still goes back: its old content is stored, the new one only hashed', async () => {
    const big = 'x'.repeat(2048);
    const settings = defaultSettings();
    await commandTurn(snapshots(), nodeCommand(`require('fs').writeFileSync('notes.txt','${big}')`), { ...settings, tools: { ...settings.tools, snapshotMaxBytes: 1024 } });
    const change = commandResult().fileChanges?.[0];
    expect(change).toMatchObject({ path: 'notes.txt', before: blobRefOfBytes(Buffer.from('first line\n')), after: blobRefOfBytes(Buffer.from(big)) });
    await expect(fixture.session.log.blobs.read(blobRefOf(big))).rejects.toThrow();
    const items = planFileRestore(fixture.session.log.path(), checkpoints(fixture.session.log.path())[0]?.entryId ?? '') ?? [];
    expect(await changedSince(items, port, blobRefOf)).toEqual([]);
    expect((await restoreToRequest()).failed).toEqual([]);
    expect(file('notes.txt')).toBe('first line\n');
  });

  it('a large file changed by ten commands adds nothing to the store, and each change says why it cannot be restored', async () => {
    const settings = defaultSettings();
    const small = { ...settings, tools: { ...settings.tools, snapshotMaxBytes: 64 * 1024 } };
    fixture.ws.write('data.bin', 'a'.repeat(1024 * 1024));
    const snapshotter = snapshots();
    await commandTurn(snapshotter, nodeCommand('1'), small);
    const stored = (): number => readdirSync(fixture.session.log.blobs.dir).reduce((sum, name) => sum + lstatSync(nodePath.join(fixture.session.log.blobs.dir, name)).size, 0);
    const start = stored();
    for (let command = 0; command < 10; command++) await commandTurn(snapshotter, nodeCommand(`require('fs').writeFileSync('data.bin','${command}'.repeat(1024*1024))`), small);
    expect(stored() - start).toBeLessThan(64 * 1024);
    expect(commandResult().content).toMatch(/data\.bin was changed by the command without a checkpoint snapshot \(at 1\.0 MB it is above compactionAgent\.tools\.snapshotMaxBytes/);
  });

  it('the store cap: a command whose snapshot would pass it runs without one, says so, and the store stays under the cap', async () => {
    const cap = 64 * 1024;
    for (let n = 0; n < 20; n++) fixture.ws.write(`data/${n}.txt`, `${n}`.repeat(8 * 1024));
    await commandTurn(snapshots({ storeCapBytes: () => cap }));
    expect(file('notes.txt')).toBe('rewritten by a formatter\n');
    expect(commandResult().checkpointGap).toMatch(/the checkpoint store is full .*compactionAgent\.tools\.snapshotStoreMaxMegabytes/);
    const total = readdirSync(fixture.session.log.blobs.dir).reduce((sum, name) => sum + lstatSync(nodePath.join(fixture.session.log.blobs.dir, name)).size, 0);
    expect(total).toBeLessThanOrEqual(cap);
  });

  it('a symbolic link a command changes is named as not restorable, never written back as a file', async () => {
    symlinkSync('notes.txt', nodePath.join(fixture.ws.root, 'link.txt'));
    await commandTurn(snapshots(), nodeCommand("const f=require('fs');f.rmSync('link.txt');f.symlinkSync('gone.txt','link.txt');f.writeFileSync('notes.txt','changed\\n')"));
    expect(commandResult().content).toContain('link.txt was changed by the command without a checkpoint snapshot (it is a symbolic link)');
    const outcome = await restoreToRequest();
    expect(file('notes.txt')).toBe('first line\n');
    expect(outcome.failed.map((failure) => failure.path)).toEqual(['link.txt']);
    expect(lstatSync(nodePath.join(fixture.ws.root, 'link.txt')).isSymbolicLink()).toBe(true);
  });

  it('a storage folder that cannot hold the snapshots never stops the command', async () => {
    rmSync(fixture.session.log.blobs.dir, { recursive: true, force: true });
    writeFileSync(fixture.session.log.blobs.dir, 'a file where the blob folder should be');
    await commandTurn(snapshots());
    expect(file('notes.txt')).toBe('rewritten by a formatter\n');
    expect(commandResult().isError).toBe(false);
    expect(commandResult().checkpointGap).toMatch(/ENOTDIR|EEXIST|not a directory/i);
  });

  it('a workspace above the size cap is not snapshotted, and the checkpoint says why', async () => {
    await commandTurn(snapshots({ caps: { maxFiles: 2, maxBytes: 1024 * 1024 } }));
    expect(commandResult().checkpointGap).toMatch(/has more than 2 files not excluded by \.gitignore/);
    expect(checkpoints(fixture.session.log.path())[0]?.unrecorded.count).toBe(1);
    expect(toHistoryView(fixture.session.log.path()).checkpoints?.[0]?.unrecorded).toMatch(/^cannot restore what 1 command since changed/);
  });
});
