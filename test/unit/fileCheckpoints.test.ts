// File checkpoints: every file the agent writes is snapshotted per call, and files go back to any turn (and forward again).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { recordingWorkspace } from '../../src/core/checkpoints/changeRecorder';
import { applyFileRestore, changedSince, checkpoints, planFileRestore, restoreNotice } from '../../src/core/checkpoints/fileCheckpoints';
import type { FileChange, SessionEntry } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { validateEntry } from '../../src/core/session/entryValidation';
import { awaitingCompactionConsent, returnToCompactionPoint } from '../../src/core/compaction/compactionUndo';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { collect, scriptedModel, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { nodeRestorePort } from '../support/nodeRestorePort';
import { recordingAccess } from '../support/agentWorkspace';

const fixture = useAgentFixture((ws) => ws.write('src/a.ts', 'export const answer = 41;\n'));

async function turn(userText: string, script: readonly ScriptStep[]): Promise<void> {
  await collect(runAgent({ ...baseAgentOptions(fixture, scriptedModel(script)), userText }));
}

function file(relative: string): string | null {
  const absolute = nodePath.join(fixture.ws.root, relative);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
}

const port = nodeRestorePort;

function requestId(text: string): string {
  const entry = fixture.session.log.path().find((candidate) => candidate.type === 'user' && candidate.text === text);
  if (!entry) throw new Error(`no request "${text}"`);
  return entry.id;
}

/** Restores the files to before `entryId` and records it as the extension does. */
async function restoreFiles(entryId: string): Promise<{ changes: FileChange[]; failed: Array<{ path: string; reason: string }> }> {
  const log = fixture.session.log;
  const items = planFileRestore(log.path(), entryId) ?? [];
  const outcome = await applyFileRestore(items, port, log.blobs, [fixture.ws.root]);
  if (outcome.changes.length > 0) await log.append({ type: 'fileRestore', targetId: entryId, changes: outcome.changes });
  return outcome;
}

async function twoEditingTurns(): Promise<void> {
  await turn('make it 42 and add b', [
    { toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', oldText: '41', newText: '42' } }] },
    { toolCalls: [{ name: 'write_file', args: { path: 'src/b.ts', content: 'export const b = 1;\n' } }] },
    { text: 'Done.' },
  ]);
  await turn('now 43', [{ toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', oldText: '42', newText: '43' } }] }, { text: 'Done.' }]);
}

describe('file checkpoints', () => {
  it('records each write with the content before and after, by blob, in the tool result', async () => {
    await twoEditingTurns();
    const results = fixture.session.log.path().filter((entry) => entry.type === 'toolResult');
    const [first, second, third] = results.map((entry) => (entry.type === 'toolResult' ? entry.fileChanges : undefined));
    expect(first).toEqual([{ path: 'src/a.ts', absolute: nodePath.join(fixture.ws.root, 'src/a.ts'), before: blobRefOf('export const answer = 41;\n'), after: blobRefOf('export const answer = 42;\n') }]);
    expect(second?.[0]).toMatchObject({ path: 'src/b.ts', before: null, after: blobRefOf('export const b = 1;\n') });
    expect(third?.[0]).toMatchObject({ before: blobRefOf('export const answer = 42;\n'), after: blobRefOf('export const answer = 43;\n') });
    expect(await fixture.session.log.blobs.read(blobRefOf('export const answer = 41;\n'))).toBe('export const answer = 41;\n');
  });

  it('restore-files-to-first-turn: edited files get their old content and created files are deleted', async () => {
    await twoEditingTurns();
    const points = checkpoints(fixture.session.log.path());
    expect(points.map((point) => point.title)).toEqual(['You: now 43', 'You: make it 42 and add b']);
    expect(points[1]?.files).toEqual(['src/a.ts', 'src/b.ts']);
    expect(points[0]?.files).toEqual(['src/a.ts']);
    expect(points[1]?.conversation).toBe(false);
    const outcome = await restoreFiles(requestId('make it 42 and add b'));
    expect(outcome.failed).toEqual([]);
    expect(file('src/a.ts')).toBe('export const answer = 41;\n');
    expect(file('src/b.ts')).toBeNull();
  });

  it('restore-to-second-turn keeps the first turn\'s changes', async () => {
    await twoEditingTurns();
    await restoreFiles(requestId('now 43'));
    expect(file('src/a.ts')).toBe('export const answer = 42;\n');
    expect(file('src/b.ts')).toBe('export const b = 1;\n');
  });

  it('undo-a-restore: the restore is itself a checkpoint, and restoring before it brings every file back', async () => {
    await twoEditingTurns();
    await restoreFiles(requestId('make it 42 and add b'));
    const restore = checkpoints(fixture.session.log.path())[0];
    expect(restore).toMatchObject({ kind: 'restore', title: 'Restore of 2 files to before "make it 42 and add b"' });
    await restoreFiles(restore?.entryId ?? '');
    expect(file('src/a.ts')).toBe('export const answer = 43;\n');
    expect(file('src/b.ts')).toBe('export const b = 1;\n');
  });

  it('the next request tells the model which files were restored, once', async () => {
    await twoEditingTurns();
    await restoreFiles(requestId('now 43'));
    expect(restoreNotice(fixture.session.log.path())?.text).toContain('- src/a.ts');
    const model = scriptedModel([{ text: 'Reading again.' }]);
    await collect(runAgent({ ...baseAgentOptions(fixture, model), userText: 'what is in a.ts?' }));
    const sent = JSON.stringify(model.requests[0]?.messages.at(-1));
    expect(sent).toContain('restored these files to an earlier checkpoint');
    expect(sent).toContain('what is in a.ts?');
    expect(restoreNotice(fixture.session.log.path())).toBeUndefined();
  });

  it('a file the person changed after the agent is named and left as it is, unless the person chooses to replace it (its content kept first)', async () => {
    await twoEditingTurns();
    writeFileSync(nodePath.join(fixture.ws.root, 'src/a.ts'), 'my own work\n');
    const items = planFileRestore(fixture.session.log.path(), requestId('make it 42 and add b')) ?? [];
    expect(await changedSince(items, port, blobRefOf)).toEqual(['src/a.ts']);
    const left = await applyFileRestore(items, port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(left.kept).toEqual(['src/a.ts']);
    expect(file('src/a.ts')).toBe('my own work\n');
    expect(file('src/b.ts')).toBeNull();
    for (const item of items) item.replaceChanged = true;
    const outcome = await applyFileRestore(items, port, fixture.session.log.blobs, [fixture.ws.root]);
    expect(file('src/a.ts')).toBe('export const answer = 41;\n');
    expect(outcome.changes.find((change) => change.path === 'src/a.ts')?.before).toEqual(blobRefOf('my own work\n'));
    expect(await fixture.session.log.blobs.read(blobRefOf('my own work\n'))).toBe('my own work\n');
  });

  it('a declined write records no change', async () => {
    const declined = recordingAccess(fixture.ws.root, { allow: false }).access;
    const changes: FileChange[] = [];
    const wrapped = recordingWorkspace(declined, fixture.session.log.blobs, changes);
    await expect(wrapped.writeFile('src/a.ts', 'nope')).rejects.toThrow(/declined/);
    expect(changes).toEqual([]);
    expect(file('src/a.ts')).toBe('export const answer = 41;\n');
  });

  it('a hand-edited session cannot make a restore write outside the workspace', async () => {
    const outside = nodePath.join(fixture.ws.outside, 'victim.txt');
    writeFileSync(outside, 'safe\n');
    const entry: SessionEntry = await fixture.session.log.append({ type: 'user', text: 'x' });
    await fixture.session.log.append({
      type: 'toolResult', toolCallId: 'c', toolName: 'write_file', isError: false, content: 'Wrote',
      fileChanges: [{ path: '../victim.txt', absolute: outside, before: await fixture.session.log.blobs.put('pwned\n'), after: blobRefOf('safe\n') }],
    });
    const outcome = await restoreFiles(entry.id);
    expect(outcome.failed.map((failure) => failure.path)).toEqual(['../victim.txt']);
    expect(outcome.failed[0]?.reason).toMatch(/outside the workspace/);
    expect(readFileSync(outside, 'utf8')).toBe('safe\n');
  });

  it('a missing snapshot blob fails that file only, with a reason, and writes nothing to it', async () => {
    await twoEditingTurns();
    rmSync(fixture.session.log.blobs.pathOf(blobRefOf('export const answer = 41;\n')));
    const outcome = await restoreFiles(requestId('make it 42 and add b'));
    expect(outcome.failed.map((failure) => failure.path)).toEqual(['src/a.ts']);
    expect(file('src/a.ts')).toBe('export const answer = 43;\n');
    expect(file('src/b.ts')).toBeNull();
  });

  it('file changes and restores survive reopening the session log', async () => {
    await twoEditingTurns();
    await restoreFiles(requestId('now 43'));
    const file = fixture.session.log.file;
    await fixture.session.log.close();
    const { log, warnings } = await SessionLog.open(file, { lock: false });
    expect(warnings).toEqual([]);
    expect(checkpoints(log.path()).map((point) => point.kind)).toEqual(['restore', 'request', 'request']);
    expect(planFileRestore(log.path(), requestId('make it 42 and add b'))?.map((item) => item.path)).toEqual(['src/a.ts', 'src/b.ts']);
    await log.close();
  });

  it('restore-pre-compaction-with-files: back to the compaction point, files as they were then, later turns kept on their branch', async () => {
    await turn('make it 42 and add b', [
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', oldText: '41', newText: '42' } }] },
      { text: 'Done.' },
    ]);
    const log = fixture.session.log;
    const compaction = await log.append({ type: 'compaction', summary: 'Made it 42.', firstKeptEntryId: null, tokensBefore: 900, tokensAfter: 100, files: { read: [], modified: ['src/a.ts'] }, edited: false, auto: false });
    await turn('now 43 and add c', [
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', oldText: '42', newText: '43' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'src/c.ts', content: 'c\n' } }] },
      { text: 'Done.' },
    ]);
    const items = planFileRestore(log.path(), compaction.id) ?? [];
    expect(items.map((item) => item.path)).toEqual(['src/a.ts', 'src/c.ts']);
    const later = log.leafId;
    await returnToCompactionPoint(log, compaction.id);
    const outcome = await applyFileRestore(items, port, log.blobs, [fixture.ws.root]);
    await log.append({ type: 'fileRestore', targetId: compaction.id, changes: outcome.changes });
    expect(file('src/a.ts')).toBe('export const answer = 42;\n');
    expect(file('src/c.ts')).toBeNull();
    const path = log.path();
    expect(path.some((entry) => entry.type === 'compaction')).toBe(false);
    expect(path.some((entry) => entry.type === 'user' && entry.text === 'now 43 and add c')).toBe(false);
    expect(awaitingCompactionConsent(path)).toBe(true);
    expect(later !== null && log.tree.has(later)).toBe(true);
  });

  it('a tool result with malformed snapshots keeps its output; only the snapshots are dropped', () => {
    const line = { type: 'toolResult', id: 'r', parentId: 'a', timestamp: '2026-01-01T00:00:00Z', toolCallId: 'c', toolName: 'write_file', isError: false, content: 'Wrote x', fileChanges: [{ path: 'x', absolute: 42 }] };
    const result = validateEntry(line);
    expect('entry' in result && result.entry).toMatchObject({ type: 'toolResult', content: 'Wrote x' });
    expect('entry' in result && 'fileChanges' in result.entry).toBe(false);
    expect('error' in validateEntry({ type: 'fileRestore', id: 'f', parentId: 'r', timestamp: 't', targetId: 'u', changes: [{ path: 'x' }] })).toBe(true);
  });
});
