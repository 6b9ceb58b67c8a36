// A restore that cannot be steered: a folder swapped for a link to outside at any point of the restore gets nothing written outside, and nothing outside is read into the store.
import { promises as fsPromises, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workspaceCommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import { reachFoldersThroughDescriptors } from '../../src/core/checkpoints/folderHandles';
import { applyFileRestore, planFileRestore, type RestoreItem, type RestoreOutcome } from '../../src/core/checkpoints/fileCheckpoints';
import type { SessionEntry } from '../../src/core/session/entries';
import { BlobStore, blobRefOfBytes } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { exactRestorePort } from '../support/exactRestorePort';

/** Every call of node's fs.promises a restore may make by path: the racing process strikes right before one of them. */
const PATH_CALLS = ['open', 'lstat', 'stat', 'mkdir', 'rename', 'unlink', 'rm', 'realpath', 'chmod', 'writeFile', 'readFile', 'opendir'] as const;

type PathCall = (typeof PATH_CALLS)[number];

/** Runs `work` with `strike` run once, right before the `at`-th path call (1-based); says whether it struck. */
async function strikingBefore<T>(at: number, strike: () => void, work: () => Promise<T>): Promise<{ value: T; struck: boolean }> {
  const calls = fsPromises as unknown as Record<PathCall, (...args: unknown[]) => unknown>;
  const originals = new Map(PATH_CALLS.map((name) => [name, calls[name]]));
  let count = 0;
  let struck = false;
  for (const name of PATH_CALLS) {
    const original = originals.get(name) as (...args: unknown[]) => unknown;
    calls[name] = (...args: unknown[]) => {
      if (++count === at) {
        strike();
        struck = true;
      }
      return original(...args);
    };
  }
  try {
    return { value: await work(), struck };
  } finally {
    for (const name of PATH_CALLS) calls[name] = originals.get(name) as (...args: unknown[]) => unknown;
  }
}

/** Every file below `dir` with its content (links by their target): what must not change outside. */
function tree(dir: string, prefix = ''): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = nodePath.join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) Object.assign(found, tree(path, `${prefix}${name}/`));
    else found[`${prefix}${name}`] = stat.isSymbolicLink() ? 'link' : readFileSync(path, 'utf8');
  }
  return found;
}

let base: string;
let root: string;
let outside: string;
let store: BlobStore;

beforeEach(() => {
  base = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'restore-confinement-')));
  root = nodePath.join(base, 'ws');
  outside = nodePath.join(base, 'outside');
  store = new BlobStore(nodePath.join(base, 'blobs'), nodeFileIo);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The folder as a command left it: sub/a.txt rewritten, sub/b.txt deleted, sub/deep/c.txt created. */
function commandLeft(): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(nodePath.join(root, 'sub', 'deep'), { recursive: true });
  writeFileSync(nodePath.join(root, 'sub', 'a.txt'), 'written by the command\n');
  writeFileSync(nodePath.join(root, 'sub', 'deep', 'c.txt'), 'created by the command\n');
}

/** Outside the workspace: files named like the restored ones, whose content must never reach the store. */
const OUTSIDE_FILES = { 'a.txt': 'OUTSIDE secret a\n', 'b.txt': 'OUTSIDE secret b\n', 'deep/c.txt': 'OUTSIDE secret c\n' };

function makeOutside(): void {
  rmSync(outside, { recursive: true, force: true });
  for (const [name, text] of Object.entries(OUTSIDE_FILES)) {
    mkdirSync(nodePath.dirname(nodePath.join(outside, name)), { recursive: true });
    writeFileSync(nodePath.join(outside, name), text);
  }
}

/** The racing process: `sub` moved aside and a link to outside put in its place. */
function swapParent(): void {
  renameSync(nodePath.join(root, 'sub'), nodePath.join(root, 'sub-moved'));
  symlinkSync(outside, nodePath.join(root, 'sub'));
}

async function recordedCommand(): Promise<RestoreItem[]> {
  mkdirSync(nodePath.join(root, 'sub'), { recursive: true });
  writeFileSync(nodePath.join(root, 'sub', 'a.txt'), 'before the command\n');
  writeFileSync(nodePath.join(root, 'sub', 'b.txt'), 'deleted by the command\n');
  const snapshots = workspaceCommandSnapshots({ roots: () => [root], isTrusted: () => true });
  const pending = await snapshots.before('command', { store, maxBytes: 1024 * 1024 });
  commandLeft();
  const changes = await pending.after();
  const entries = [
    { type: 'user', id: 'u', parentId: null, timestamp: 't', text: 'go' },
    { type: 'toolResult', id: 'r', parentId: 'u', timestamp: 't', toolCallId: 'c', toolName: 'run_command', isError: false, content: '', fileChanges: changes.changes },
  ] as SessionEntry[];
  return planFileRestore(entries, 'u') ?? [];
}

async function swappedAtEveryCall(descriptors: boolean): Promise<{ runs: number; failedRuns: number }> {
  const previous = reachFoldersThroughDescriptors(descriptors);
  try {
    const items = await recordedCommand();
    expect(items.map((item) => item.path).sort()).toEqual(['sub/a.txt', 'sub/b.txt', 'sub/deep/c.txt']);
    const port = exactRestorePort(() => [root]);
    let runs = 0;
    let failedRuns = 0;
    for (let at = 1; ; at++) {
      commandLeft();
      makeOutside();
      const { value: outcome, struck } = await strikingBefore<RestoreOutcome>(at, swapParent, () => applyFileRestore(items.map((item) => ({ ...item })), port, store, [root]));
      runs++;
      if (outcome.failed.length > 0) failedRuns++;
      // Nothing written, created or deleted outside; nothing of outside read into the store.
      expect(tree(outside), `swap before path call ${at}`).toEqual(OUTSIDE_FILES);
      for (const text of Object.values(OUTSIDE_FILES)) expect(await store.has(blobRefOfBytes(Buffer.from(text))), `swap before path call ${at}`).toBe(false);
      if (!struck) {
        // Past the restore's last call: the swap never came, and every file went back.
        expect(outcome).toMatchObject({ failed: [], kept: [] });
        expect(tree(nodePath.join(root, 'sub'))).toEqual({ 'a.txt': 'before the command\n', 'b.txt': 'deleted by the command\n'});
        break;
      }
    }
    return { runs, failedRuns };
  } finally {
    reachFoldersThroughDescriptors(previous);
  }
}

describe('restore confinement', () => {
  it('restore-with-swapped-parent-writes-nothing-outside', async () => {
    const { runs, failedRuns } = await swappedAtEveryCall(true);
    // The swap struck before each of the restore's calls in turn; those after it were refused, not redirected.
    expect(runs).toBeGreaterThan(10);
    expect(failedRuns).toBeGreaterThan(0);
  });

  it('where folders are reached by checked paths (other platforms), a swap at any call still writes nothing outside', async () => {
    const { runs } = await swappedAtEveryCall(false);
    expect(runs).toBeGreaterThan(10);
  });
});
