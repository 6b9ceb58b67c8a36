// Storage has a lifecycle: a file above the snapshot cap is changed without a snapshot (and says so), and deleting a session collects the blobs only it named.
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingWorkspace } from '../../src/core/checkpoints/changeRecorder';
import type { FileChange } from '../../src/core/session/entries';
import { collectUnreferencedBlobs } from '../../src/core/storage/blobCollector';
import { BlobStore, blobRefOf } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import type { WorkspaceAccess } from '../../src/core/tools/workspaceAccess';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

/** A workspace of one in-memory file system (only what the recorder uses). */
function memoryWorkspace(files: Map<string, string>): WorkspaceAccess {
  const missing = (): Error => Object.assign(new Error('missing'), { code: 'ENOENT' });
  return {
    roots: () => ['/w'],
    isTrusted: () => true,
    readFile: (path: string) => (files.has(path) ? Promise.resolve(files.get(path) as string) : Promise.reject(missing())),
    stat: (path: string) => (files.has(path) ? Promise.resolve({ type: 'file', size: (files.get(path) as string).length }) : Promise.reject(missing())),
    writeFile: (path: string, text: string) => Promise.resolve(void files.set(path, text)),
    applyEdit: () => Promise.reject(new Error('not used')),
    listDir: () => Promise.resolve([]),
    findFiles: () => Promise.resolve([]),
    searchText: () => Promise.resolve({ matches: [], truncated: false }),
    runCommand: () => Promise.reject(new Error('not used')),
  } as unknown as WorkspaceAccess;
}

describe('the snapshot size cap', () => {
  it('ten edits of a 20 MB file keep no 20 MB snapshot, and each says so', async () => {
    const files = new Map([['big.txt', 'x'.repeat(20 * 1024 * 1024)]]);
    const store = new BlobStore(nodePath.join(dir, 'blobs'), nodeFileIo);
    const changes: FileChange[] = [];
    const notes: string[] = [];
    const workspace = recordingWorkspace(memoryWorkspace(files), store, changes, { maxBytes: 4 * 1024 * 1024, notes });
    for (let edit = 0; edit < 10; edit++) await workspace.writeFile('big.txt', `${edit}${'x'.repeat(20 * 1024 * 1024 - 1)}`);
    await workspace.writeFile('small.txt', 'small');
    expect(notes).toHaveLength(10);
    expect(notes[0]).toMatch(/big\.txt was changed without a checkpoint snapshot: at 20\.0 MB it is above compactionAgent\.tools\.snapshotMaxBytes/);
    expect(changes[0]).not.toHaveProperty('before');
    expect(changes[0]?.after).toEqual(blobRefOf(files.get('big.txt')?.replace(/^9/, '0') ?? ''));
    expect(changes[10]).toMatchObject({ path: 'small.txt', before: null, after: blobRefOf('small') });
    const stored = readdirSync(nodePath.join(dir, 'blobs'));
    expect(stored).toEqual([nodePath.basename(store.pathOf(blobRefOf('small')))]);
  });
});

describe('collecting blobs no session names', () => {
  function layout(): { sessions: string; blobs: string; old: number } {
    const sessions = nodePath.join(dir, 'sessions');
    const blobs = nodePath.join(sessions, 'blobs');
    mkdirSync(blobs, { recursive: true });
    mkdirSync(nodePath.join(sessions, 'deleted'));
    const old = Date.now() / 1000 - 3600;
    for (const text of ['kept by a', 'kept by deleted', 'only the removed session', 'fresh']) {
      const path = nodePath.join(blobs, `${blobRefOf(text).sha256}.txt`);
      writeFileSync(path, text);
      if (text !== 'fresh') utimesSync(path, old, old);
    }
    writeFileSync(nodePath.join(blobs, 'notes.md'), 'not a blob');
    utimesSync(nodePath.join(blobs, 'notes.md'), old, old);
    writeFileSync(nodePath.join(sessions, 'a.jsonl'), `{"blob":{"sha256":"${blobRefOf('kept by a').sha256}"}}\n`);
    writeFileSync(nodePath.join(sessions, 'deleted', 'b.jsonl'), `{"before":{"sha256":"${blobRefOf('kept by deleted').sha256}"}}\n`);
    return { sessions, blobs, old };
  }

  it('removes what no log names, keeps what one does, what is younger than ten minutes, and what is no blob', async () => {
    const { sessions, blobs } = layout();
    const result = await collectUnreferencedBlobs(nodeFileIo, sessions, blobs);
    expect(result).toEqual({ removed: 1, bytesFreed: 'only the removed session'.length, kept: 3 });
    expect(readdirSync(blobs).sort()).toEqual([...['kept by a', 'kept by deleted', 'fresh'].map((text) => `${blobRefOf(text).sha256}.txt`), 'notes.md'].sort());
  });

  it('a blob a running turn stores again (deduplicated) is kept by a collection that runs before its entry is appended', async () => {
    const { sessions, blobs } = layout();
    const store = new BlobStore(blobs, nodeFileIo);
    // Old and named by no session: a turn about to name it again (a snapshot of the same content) stores it now.
    const ref = await store.put('only the removed session');
    const result = await collectUnreferencedBlobs(nodeFileIo, sessions, blobs);
    expect(result.removed).toBe(0);
    expect(await store.read(ref)).toBe('only the removed session');
  });

  it("keeps what a checkpoint index names (a workspace file's content the next command's restore may need)", async () => {
    const { sessions, blobs } = layout();
    mkdirSync(nodePath.join(sessions, 'checkpoints'));
    writeFileSync(nodePath.join(sessions, 'checkpoints', '0123456789abcdef.index'), `header\n${blobRefOf('only the removed session').sha256} 1 24 1 1 1 33188 1 "a.txt"\n`);
    expect((await collectUnreferencedBlobs(nodeFileIo, sessions, blobs)).removed).toBe(0);
  });

  it('does nothing when there is no blob folder', async () => {
    expect(await collectUnreferencedBlobs(nodeFileIo, dir, nodePath.join(dir, 'none'))).toEqual({ removed: 0, bytesFreed: 0, kept: 0 });
  });
});
