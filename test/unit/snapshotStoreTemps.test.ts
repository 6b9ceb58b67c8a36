// Temp files a killed snapshot left in the blob store: removed when the store is first measured, and never counted toward its cap.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workspaceCommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import { StoreBudget } from '../../src/core/checkpoints/storeBudget';
import { BlobStore } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { tempPathBeside } from '../../src/core/storage/tempName';

let base: string;
let store: BlobStore;

beforeEach(() => {
  base = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'store-temps-')));
  store = new BlobStore(nodePath.join(base, 'sessions', 'blobs'), nodeFileIo);
  mkdirSync(store.dir, { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The id of a process that has ended: what a window killed with -9 leaves in its temp names. */
function endedProcessId(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A temp file as a blob write names it (beside its blob, ending in `<pid>.tmp`), `bytes` long. */
function leftover(pid: number, bytes: number): string {
  const path = tempPathBeside(nodePath.join(store.dir, `${'a'.repeat(64)}.txt`), `${pid}.tmp`);
  writeFileSync(path, Buffer.alloc(bytes, 1));
  return path;
}

describe('temp files in the snapshot store', () => {
  it('a killed writer\'s temp file is removed at the first measurement and not counted; a running writer\'s is kept, not counted', async () => {
    writeFileSync(store.pathOf({ sha256: 'b'.repeat(64) }), 'a blob\n');
    const killed = leftover(endedProcessId(), 3 * 1024 * 1024);
    const mine = leftover(process.pid, 1024);
    const stale = leftover(process.pid, 2048);
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(stale, old, old);
    const budget = new StoreBudget(store.dir, () => 4 * 1024 * 1024);
    expect(await budget.usedBytes()).toBe('a blob\n'.length);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(mine)).toBe(true);
  });

  it('a leftover temp file never takes room a command\'s snapshot needs', async () => {
    leftover(endedProcessId(), 3 * 1024 * 1024);
    const root = nodePath.join(base, 'ws');
    mkdirSync(root);
    writeFileSync(nodePath.join(root, 'data.bin'), Buffer.alloc(2 * 1024 * 1024, 7));
    const snapshots = workspaceCommandSnapshots({ roots: () => [root], isTrusted: () => true, storeCapBytes: () => 4 * 1024 * 1024 });
    const pending = await snapshots.before('command', { store, maxBytes: 4 * 1024 * 1024 });
    writeFileSync(nodePath.join(root, 'data.bin'), 'changed');
    const changes = await pending.after();
    expect(changes.gap).toBeUndefined();
    expect(changes.changes.map((change) => change.path)).toEqual(['data.bin']);
    expect(readdirSync(store.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
