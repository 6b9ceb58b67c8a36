// Hostile-workspace cases for restores: modes put back exactly, a racing process swapping a folder for a link to outside, a snapshot and a restore cut by kill -9.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { reachesFoldersThroughDescriptors } from '../../src/core/checkpoints/folderHandles';
import { changedSince, planFileRestore, type RestoreItem } from '../../src/core/checkpoints/fileCheckpoints';
import { StoreBudget } from '../../src/core/checkpoints/storeBudget';
import type { SessionEntry } from '../../src/core/session/entries';
import { blobRefOf, blobRefOfBytes } from '../../src/core/storage/blobStore';
import type { HostileCase } from './caseRunner';
import { startChild } from './childProcesses';
import { SeededRandom } from './seededRandom';
import { byteTree, commandCycle, commonChecks, confinedPort, snapshotsFor, treeDifferences, workspaceCase } from './workspaceKit';

/** What the racing and killing cases saw (for the family's line): files refused mid-swap, killed snapshots that left temp files. */
export const killed = { refusedWhileSwapped: 0, leftTemps: 0 };

const MODES = [0o400, 0o444, 0o600, 0o640, 0o644, 0o700, 0o711, 0o750, 0o755];

/** The mode and content of every file below `dir` (names relative to it). */
function modesAndBytes(dir: string, prefix = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    const path = nodePath.join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) for (const [key, value] of modesAndBytes(path, `${prefix}${name}/`)) found.set(key, value);
    else found.set(`${prefix}${name}`, `${(stat.mode & 0o7777).toString(8)} ${blobRefOfBytes(readFileSync(path)).sha256}`);
  }
  return found;
}

function modeCase(seed: number): HostileCase {
  return workspaceCase(`modes (seed ${seed}): deleted, chmod-only and rewritten files come back with their modes`, async (ws, outcome) => {
    const random = new SeededRandom(seed);
    const dir = nodePath.join(ws.root, 'modes');
    mkdirSync(dir);
    const names = Array.from({ length: 8 }, (_, k) => `file${k}`);
    for (const name of names) {
      writeFileSync(nodePath.join(dir, name), `${name} ${seed}\n`);
      chmodSync(nodePath.join(dir, name), random.pick(MODES));
    }
    const before = modesAndBytes(dir);
    const snapshots = snapshotsFor(ws);
    const cycle = await commandCycle(ws, snapshots, () => {
      for (const name of names) {
        const path = nodePath.join(dir, name);
        const action = random.int(0, 3);
        if (action === 0) rmSync(path);
        else if (action === 1) chmodSync(path, random.pick(MODES.filter((mode) => mode !== (statSync(path).mode & 0o7777))));
        else if (action === 2) {
          chmodSync(path, 0o644);
          writeFileSync(path, 'rewritten\n');
          chmodSync(path, random.pick(MODES));
        }
      }
    });
    const restored = await cycle.restore();
    if (restored.failed.length > 0) outcome.failures.push(`not restored: ${restored.failed.map((failure) => `${failure.path} (${failure.reason})`).join('; ')}`);
    const after = modesAndBytes(dir);
    for (const [name, state] of before) if (after.get(name) !== state) outcome.failures.push(`${name}: ${after.get(name) ?? 'missing'} after the restore, ${state} before the command`);
    commonChecks(ws, outcome, [...cycle.started, ...restored.started]);
  });
}

/** A racing process: swaps `folder` for a link to `outside` and back, as fast as it can, until killed; resolves once it races. */
async function startSwapper(folder: string, outside: string): Promise<ReturnType<typeof spawn>> {
  const script = `const f=require('fs');const a=${JSON.stringify(folder)},b=a+'-real',o=${JSON.stringify(outside)};let n=0;for(;;){try{f.renameSync(a,b);f.symlinkSync(o,a);f.unlinkSync(a);f.renameSync(b,a);}catch{}if(++n===50)f.writeSync(1,'racing\\n');}`;
  const swapper = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => swapper.stdout.once('data', resolve));
  return swapper;
}

function swappedParentCase(seed: number): HostileCase {
  const descriptors = reachesFoldersThroughDescriptors();
  return workspaceCase(`a racing process swaps the restored folder for a link to outside (seed ${seed}${descriptors ? '' : ', folders by checked paths'})`, async (ws, outcome) => {
    const outside = nodePath.join(ws.base, 'outside');
    const sub = nodePath.join(ws.root, 'src');
    mkdirSync(outside);
    const names = Array.from({ length: 12 }, (_, k) => `m${k}.ts`);
    for (const name of names) writeFileSync(nodePath.join(outside, name), `OUTSIDE ${name} never read\n`);
    for (const name of names) writeFileSync(nodePath.join(sub, name), `before ${name}\n`);
    const cycle = await commandCycle(ws, snapshotsFor(ws), () => {
      for (const [k, name] of names.entries()) {
        if (k % 3 === 0) rmSync(nodePath.join(sub, name));
        else writeFileSync(nodePath.join(sub, name), `after ${name} ${seed}\n`);
      }
      writeFileSync(nodePath.join(sub, 'created.ts'), 'new\n');
    });
    const outsideBefore = byteTree(outside);
    const swapper = await startSwapper(sub, outside);
    const restored = await cycle.restore().finally(() => swapper.kill('SIGKILL'));
    await new Promise((resolve) => swapper.once('close', resolve));
    killed.refusedWhileSwapped += restored.failed.length;
    const differences = treeDifferences(outsideBefore, byteTree(outside));
    // Through descriptors nothing outside changes at all; by checked paths a swap can at worst leave a stray empty
    // temp file or a renamed file outside (RELIABILITY.md), never content written or lost.
    const harmful = descriptors ? differences : differences.filter((line) => !line.endsWith(' created'));
    for (const difference of harmful) outcome.failures.push(`outside the workspace: ${difference}`);
    for (const name of names) if (await ws.store.has(blobRefOf(`OUTSIDE ${name} never read\n`))) outcome.failures.push(`outside content of ${name} was read into the store`);
    commonChecks(ws, outcome, [...cycle.started, ...restored.started]);
  });
}

function killedSnapshotCase(seed: number): HostileCase {
  return workspaceCase(`a snapshot killed with -9 (seed ${seed}): its temp files are removed at the next start and never counted`, async (ws, outcome) => {
    const big = nodePath.join(ws.base, 'big');
    mkdirSync(big);
    const random = new SeededRandom(seed);
    for (let k = 0; k < 12; k++) writeFileSync(nodePath.join(big, `blob${k}.bin`), Buffer.alloc(4 * 1024 * 1024, random.int(0, 255)));
    // A store of its own (the session's is under a cap this snapshot of 48 MB is not).
    const blobs = nodePath.join(ws.base, 'killed-blobs');
    const run = startChild('workspaceKillChild', ['snapshot', big, blobs]);
    // Killed as soon as a temp file of a blob write is there (or after 10 s, whatever it was doing).
    const deadline = Date.now() + 10_000;
    const temps = (): string[] => (existsSync(blobs) ? readdirSync(blobs).filter((name) => name.endsWith('.tmp')) : []);
    while (Date.now() < deadline && temps().length === 0 && run.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 1));
    run.child.kill('SIGKILL');
    await run.exited;
    const left = temps();
    const kept = existsSync(blobs) ? readdirSync(blobs).filter((name) => !name.endsWith('.tmp')) : [];
    const expected = kept.reduce((sum, name) => sum + statSync(nodePath.join(blobs, name)).size, 0);
    const used = await new StoreBudget(blobs, () => Number.POSITIVE_INFINITY).usedBytes();
    if (used !== expected) outcome.failures.push(`the store was measured at ${used} bytes; its blobs hold ${expected} (temp files counted?)`);
    if (temps().length > 0) outcome.failures.push(`${temps().length} temp file(s) of the killed snapshot are still there`);
    if (left.length > 0) killed.leftTemps++;
    commonChecks(ws, outcome, []);
  });
}

function killedRestoreCase(seed: number): HostileCase {
  return workspaceCase(`a restore killed with -9 (seed ${seed}), run again: nothing it put back is "changed since", and it completes`, async (ws, outcome) => {
    const dir = nodePath.join(ws.root, 'many');
    mkdirSync(dir);
    for (let k = 0; k < 120; k++) writeFileSync(nodePath.join(dir, `f${k}.txt`), `before ${k}\n`.repeat(50));
    const before = byteTree(dir);
    const cycle = await commandCycle(ws, snapshotsFor(ws), () => {
      for (let k = 0; k < 120; k++) {
        if (k % 4 === 0) rmSync(nodePath.join(dir, `f${k}.txt`));
        else writeFileSync(nodePath.join(dir, `f${k}.txt`), `after ${k}\n`);
      }
    });
    const entries = [
      { type: 'user', id: 'u', parentId: null, timestamp: 't', text: 'run it' },
      { type: 'toolResult', id: 'r', parentId: 'u', timestamp: 't', toolCallId: 'c', toolName: 'run_command', isError: false, content: '', fileChanges: cycle.changes.changes },
    ] as SessionEntry[];
    const items: RestoreItem[] = planFileRestore(entries, 'u') ?? [];
    const file = nodePath.join(ws.base, 'items.json');
    writeFileSync(file, JSON.stringify(items));
    const random = new SeededRandom(seed);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = startChild('workspaceKillChild', ['restore', file, ws.store.dir, ws.root], (line) => {
      if (line === 'ready') timer = setTimeout(() => run.child.kill('SIGKILL'), random.int(20, 400));
    });
    await run.exited;
    clearTimeout(timer);
    const changed = await changedSince(items, confinedPort(ws.root), blobRefOf, [ws.root]);
    if (changed.length > 0) outcome.failures.push(`${changed.length} file(s) named "changed since" after the cut restore: ${changed.slice(0, 3).join(', ')}`);
    const restored = await cycle.restore();
    if (restored.failed.length > 0 || restored.kept.length > 0) outcome.failures.push(`the second run failed ${restored.failed.length} and kept ${restored.kept.length}`);
    // A write cut by the kill may leave its temp file (named so) beside the file; nothing else may differ.
    const restoreTemp = (key: string): boolean => /^\.restore-\d+-[0-9a-f]{12}\.tmp$/.test(Buffer.from(key.split('/').at(-1) ?? '', 'hex').toString('utf8'));
    for (const difference of treeDifferences(before, byteTree(dir), restoreTemp)) outcome.failures.push(`after the second run: ${difference}`);
    commonChecks(ws, outcome, [...cycle.started, ...restored.started]);
  });
}

export function hostileRestoreCases(): HostileCase[] {
  const seeds = [1, 2, 3, 4];
  return [...seeds.map(modeCase), ...seeds.map(swappedParentCase), ...seeds.slice(0, 2).map(killedSnapshotCase), ...seeds.map(killedRestoreCase)];
}
