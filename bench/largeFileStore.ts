// The checkpoint store after ten commands that each change a 50 MB file (a log-like text), against git's repository after the same eleven commits.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { workspaceCommandSnapshots } from '../src/core/checkpoints/commandSnapshots';
import { defaultSettings } from '../src/core/settings/settings';
import { BlobStore } from '../src/core/storage/blobStore';
import { nodeFileIo } from '../src/core/storage/fileIo';
import { row, type BenchRow } from './benchReport';
import { folderBytes, git, gitCommit } from './gitYardstick';
import { SeededRandom } from '../test/faults/seededRandom';
import { cpuNow } from './timing';

const FILE_BYTES = 50 * 1024 * 1024;
const CHANGES = 10;
/** Lines rewritten in place per change, and lines appended at the end. */
const EDITED_LINES = 20;
const APPENDED_LINES = 500;

const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
const ROUTES = ['/api/users', '/api/orders', '/api/search', '/health', '/api/items', '/login', '/static/app.js'];

function logLine(random: SeededRandom, n: number): string {
  const time = `${String(Math.floor(n / 36000) % 24).padStart(2, '0')}:${String(Math.floor(n / 600) % 60).padStart(2, '0')}:${String(Math.floor(n / 10) % 60).padStart(2, '0')}.${String(n % 1000).padStart(3, '0')}`;
  const id = random.int(0, 0xffffffff).toString(16).padStart(8, '0');
  return `2026-11-28T${time}Z ${random.pick(LEVELS)} worker-${random.int(0, 31)} ${random.pick(ROUTES)} request ${id} took ${random.int(0, 899)} ms status ${random.pick([200, 200, 200, 201, 304, 404, 500])}`;
}

function writeLines(file: string, lines: readonly string[]): void {
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function ratioRow(storeBytes: number, gitBytes: number, ourCpuMs: number, gitCpuMs: number, fileBytes: number): BenchRow {
  const ratio = storeBytes / gitBytes;
  const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return row({
    key: 'snapshots.largeFileStore',
    label: `checkpoint store after ${CHANGES} changes of a 50 MB file vs git's repository`,
    value: ratio,
    unit: '×',
    target: '≤ 1',
    met: ratio <= 1,
    detail: `our store ${mb(storeBytes)} vs git's .git ${mb(gitBytes)} after the first snapshot and ${CHANGES} commands (git: the first commit and ${CHANGES} more), each rewriting ${EDITED_LINES} lines of a ${mb(fileBytes)} log-like text and appending ${APPENDED_LINES}; ${mb(fileBytes * (CHANGES + 1))} of versions; CPU of our snapshots ${(ourCpuMs / 1000).toFixed(2)} s, git's add+commit ${(gitCpuMs / 1000).toFixed(2)} s`,
  });
}

export async function largeFileStoreBench(): Promise<BenchRow[]> {
  const base = mkdtempSync(nodePath.join(tmpdir(), 'bench-large-file-'));
  try {
    const random = new SeededRandom(37);
    const lines: string[] = [];
    for (let bytes = 0; bytes < FILE_BYTES; ) {
      const line = logLine(random, lines.length);
      lines.push(line);
      bytes += line.length + 1;
    }
    const ourRoot = nodePath.join(base, 'ours');
    const gitRoot = nodePath.join(base, 'git');
    for (const root of [ourRoot, gitRoot]) {
      mkdirSync(root);
      writeLines(nodePath.join(root, 'server.log'), lines);
    }
    git(gitRoot, ['init', '-q']);
    let gitCpuMs = gitCommit(gitRoot, 'first').cpuMs;
    const store = new BlobStore(nodePath.join(base, 'storage', 'blobs'), nodeFileIo);
    const snapshots = workspaceCommandSnapshots({ roots: () => [ourRoot], isTrusted: () => true, sessionsDir: nodePath.join(base, 'storage') });
    const target = { store, maxBytes: defaultSettings().tools.snapshotMaxBytes };
    let cpu = cpuNow();
    await snapshots.turnStarted('first', target);
    let ourCpuMs = cpuNow() - cpu;
    let fileBytes = 0;
    for (let change = 0; change < CHANGES; change++) {
      for (let edit = 0; edit < EDITED_LINES; edit++) {
        const at = random.int(0, lines.length - 1);
        lines[at] = logLine(random, at);
      }
      for (let added = 0; added < APPENDED_LINES; added++) lines.push(logLine(random, lines.length));
      cpu = cpuNow();
      const pending = await snapshots.before(`change ${change}`, target);
      ourCpuMs += cpuNow() - cpu;
      for (const root of [ourRoot, gitRoot]) writeLines(nodePath.join(root, 'server.log'), lines);
      cpu = cpuNow();
      const found = await pending.after();
      ourCpuMs += cpuNow() - cpu;
      if (found.gap || found.changes.length !== 1 || found.notes.length > 0) throw new Error(`large-file bench: change ${change} found ${found.changes.length} changes (${found.gap ?? found.notes.join('; ')})`);
      gitCpuMs += gitCommit(gitRoot, `change ${change}`).cpuMs;
      fileBytes = found.changes[0]?.after?.bytes ?? 0;
    }
    await snapshots.dispose();
    return [ratioRow(folderBytes(store.dir), folderBytes(nodePath.join(gitRoot, '.git')), ourCpuMs, gitCpuMs, fileBytes)];
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
