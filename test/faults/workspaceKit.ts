// The hostile-workspace fault family's kit: a workspace armed with a nested repository that runs programs if any git looks into it, one command's snapshots and restore, and the checks every case makes.
import * as childProcess from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { workspaceCommandSnapshots, type CommandChanges, type EditorSaves } from '../../src/core/checkpoints/commandSnapshots';
import { readExact, removeExact, writeExact } from '../../src/core/checkpoints/exactFiles';
import { applyFileRestore, planFileRestore, type RestoreOutcome, type RestorePort } from '../../src/core/checkpoints/fileCheckpoints';
import type { SessionEntry } from '../../src/core/session/entries';
import { BlobStore } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { passed, type CaseOutcome, type HostileCase } from './caseRunner';

export const MAX_BYTES = 64 * 1024;
export const STORE_CAP = 4 * 1024 * 1024;
export const SECRET = 'TOKEN=never-delete-me\n';
export const MARKERS = ['HOOK-RAN', 'CLEAN-FILTER-RAN', 'SMUDGE-RAN', 'FSMONITOR-RAN', 'TEXTCONV-RAN', 'ENV-CONFIG-RAN', 'FAKE-GIT-RAN'];

/** Child processes started while `work` runs, counted on node's shared child_process module (every way to start one). */
export async function countingChildren<T>(work: () => Promise<T>): Promise<{ value: T; started: string[] }> {
  const started: string[] = [];
  // node's own module object (an ES namespace's bindings cannot be replaced): every importer calls through it.
  const module = createRequire(__filename)('node:child_process') as Record<string, (...args: unknown[]) => unknown>;
  const names = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'];
  const originals = new Map(names.map((name) => [name, module[name]]));
  for (const name of names) {
    const original = originals.get(name) as (...args: unknown[]) => unknown;
    module[name] = (...args: unknown[]) => {
      started.push(`${name} ${String(args[0])}`);
      return original(...args);
    };
  }
  try {
    return { value: await work(), started };
  } finally {
    for (const name of names) module[name] = originals.get(name) as (...args: unknown[]) => unknown;
  }
}

/** Every file below `dir` (names as bytes, .git folders included) with a hash of its bytes; links by their target. */
export function byteTree(dir: string | Buffer, prefix = ''): Map<string, string> {
  const tree = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
    const name = entry.name as unknown as Buffer;
    const path = Buffer.concat([Buffer.from(dir), Buffer.from('/'), name]);
    const key = `${prefix}${name.toString('hex')}`;
    const stat = lstatSync(path);
    if (stat.isDirectory()) for (const [child, hash] of byteTree(path, `${key}/`)) tree.set(child, hash);
    else if (stat.isFile()) tree.set(key, createHash('sha256').update(readFileSync(path)).digest('hex'));
    else tree.set(key, `other:${stat.mode}`);
  }
  return tree;
}

/** The byteTree key of an absolute path below `root`. */
export function hexKey(root: string, absolute: Buffer): string {
  return absolute
    .subarray(Buffer.byteLength(root) + 1)
    .toString('latin1')
    .split('/')
    .map((part) => Buffer.from(part, 'latin1').toString('hex'))
    .join('/');
}

export function treeDifferences(expected: Map<string, string>, actual: Map<string, string>, ignore: (hexKey: string) => boolean = () => false): string[] {
  const shown = (key: string): string => key.split('/').map((part) => Buffer.from(part, 'hex').toString('utf8')).join('/');
  const differences: string[] = [];
  for (const [key, hash] of expected) if (!ignore(key) && actual.get(key) !== hash) differences.push(`${shown(key)} ${actual.has(key) ? 'rewritten' : 'deleted'}`);
  for (const key of actual.keys()) if (!ignore(key) && !expected.has(key)) differences.push(`${shown(key)} created`);
  return differences;
}

/** A restore port confined to `root`: every read and write through exactFiles (folders opened without following links). */
export function confinedPort(root: string): RestorePort {
  return {
    read: (absolute) => readExact(absolute, [root]).then((file) => (file === null ? null : file.data.toString('utf8'))),
    write: (absolute, text) => writeExact(absolute, Buffer.from(text, 'utf8'), [root]),
    remove: (absolute, raw) => removeExact(raw ?? absolute, [root]),
    readBytes: (absolute, raw) => readExact(raw ?? absolute, [root]),
    writeBytes: (absolute, data, raw, mode) => writeExact(raw ?? absolute, data, [root], mode),
  };
}

export function git(cwd: string, args: string[]): boolean {
  try {
    childProcess.execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    return true;
  } catch {
    return false;
  }
}

/**
 * A nested repository armed to run something if any git ever looks into it: hooks, clean/smudge filters and
 * textconv for every file, an fsmonitor, all of them writing a marker file. Its index is racily clean (written in
 * the same second as the files, then a file edited keeping its size and time), so a git status would run the filter.
 */
export function armedRepository(root: string): void {
  const repo = nodePath.join(root, 'vendor', 'armed');
  mkdirSync(repo, { recursive: true });
  writeFileSync(nodePath.join(repo, 'lib.c'), 'int armed = 1;\n');
  writeFileSync(nodePath.join(repo, '.gitattributes'), '* filter=evil diff=evil\n');
  const made = git(repo, ['init', '-q']) && git(repo, ['add', '-A']) && git(repo, ['-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '-qm', 'armed']);
  if (!made) mkdirSync(nodePath.join(repo, '.git', 'hooks'), { recursive: true });
  const marker = (name: string): string => `touch ${JSON.stringify(nodePath.join(root, name))}`;
  writeFileSync(nodePath.join(repo, '.git', 'config'), `[core]\n\tfsmonitor = ${marker('FSMONITOR-RAN')}\n\thooksPath = .git/hooks\n[filter "evil"]\n\tclean = ${marker('CLEAN-FILTER-RAN')}; cat\n\tsmudge = ${marker('SMUDGE-RAN')}; cat\n\trequired = true\n[diff "evil"]\n\ttextconv = ${marker('TEXTCONV-RAN')}; cat\n`);
  for (const hook of ['pre-commit', 'post-checkout', 'post-index-change', 'fsmonitor-watchman', 'reference-transaction']) {
    const path = nodePath.join(repo, '.git', 'hooks', hook);
    writeFileSync(path, `#!/bin/sh\n${marker('HOOK-RAN')}\n`);
    chmodSync(path, 0o755);
  }
  // Racily clean: same size, same second, content changed.
  const file = nodePath.join(repo, 'lib.c');
  const { mtime } = statSync(file);
  writeFileSync(file, 'int armed = 2;\n');
  utimesSync(file, mtime, mtime);
}

/** A `git` first on PATH that writes a marker: any git started by name would run it. */
export function fakeGit(base: string, root: string): string {
  const bin = nodePath.join(base, 'bin');
  mkdirSync(bin, { recursive: true });
  const path = nodePath.join(bin, 'git');
  writeFileSync(path, `#!/bin/sh\ntouch ${JSON.stringify(nodePath.join(root, 'FAKE-GIT-RAN'))}\nexit 0\n`);
  chmodSync(path, 0o755);
  return bin;
}

export interface Workspace {
  base: string;
  root: string;
  sessions: string;
  store: BlobStore;
  saved: string[];
}

export function makeWorkspace(): Workspace {
  const base = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'faults-workspace-')));
  const root = nodePath.join(base, 'ws');
  mkdirSync(nodePath.join(root, 'src'), { recursive: true });
  mkdirSync(nodePath.join(root, 'secrets'));
  writeFileSync(nodePath.join(root, '.gitignore'), '.env\nsecrets/\nbuild/\n*.log\n');
  writeFileSync(nodePath.join(root, '.env'), SECRET);
  writeFileSync(nodePath.join(root, 'secrets', 'id_rsa'), '-----BEGIN PRIVATE KEY-----\nnever delete me\n');
  writeFileSync(nodePath.join(root, 'src', 'main.ts'), 'export const main = 1;\n');
  writeFileSync(nodePath.join(root, 'src', 'crlf.txt'), 'one\r\ntwo\r\nmixed\n');
  writeFileSync(nodePath.join(root, 'src', 'utf16.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ünïcode\r\n', 'utf16le')]));
  writeFileSync(Buffer.concat([Buffer.from(nodePath.join(root, 'src', 'l')), Buffer.from([0xe4]), Buffer.from('tin1.txt')]), 'latin-1 name\n');
  writeFileSync(nodePath.join(root, 'notes.log'), 'ignored log\n');
  armedRepository(root);
  const sessions = nodePath.join(base, 'sessions');
  return { base, root, sessions, store: new BlobStore(nodePath.join(sessions, 'blobs'), nodeFileIo), saved: [] };
}

export interface Cycle {
  changes: CommandChanges;
  started: string[];
  restore: () => Promise<RestoreOutcome & { started: string[] }>;
}

/** One command: the snapshot before it, `command` (run in this process), the snapshot after; then a restore on demand. */
export async function commandCycle(ws: Workspace, snapshots: ReturnType<typeof workspaceCommandSnapshots>, command: (root: string) => void, maxBytes = MAX_BYTES): Promise<Cycle> {
  const target = { store: ws.store, maxBytes };
  const before = await countingChildren(() => snapshots.before('hostile command', target));
  command(ws.root);
  const after = await countingChildren(() => before.value.after());
  const changes = after.value;
  const entries = [
    { type: 'user', id: 'u', parentId: null, timestamp: 't', text: 'run it' },
    { type: 'toolResult', id: 'r', parentId: 'u', timestamp: 't', toolCallId: 'c', toolName: 'run_command', isError: false, content: '', fileChanges: changes.changes },
  ] as SessionEntry[];
  return {
    changes,
    started: [...before.started, ...after.started],
    restore: async () => {
      const items = planFileRestore(entries, 'u') ?? [];
      const restored = await countingChildren(() => applyFileRestore(items, confinedPort(ws.root), ws.store, [ws.root]));
      return { ...restored.value, started: restored.started };
    },
  };
}

export function snapshotsFor(ws: Workspace, saves?: EditorSaves): ReturnType<typeof workspaceCommandSnapshots> {
  return workspaceCommandSnapshots({ roots: () => [ws.root], isTrusted: () => true, sessionsDir: ws.sessions, storeCapBytes: () => STORE_CAP, ...(saves ? { saves } : {}) });
}

export function storeBytes(ws: Workspace): number {
  const dir = ws.store.dir;
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).reduce((sum, name) => sum + statSync(nodePath.join(dir, name)).size, 0);
}

/** The checks every case makes: no child process, no marker, the store under its cap. */
export function commonChecks(ws: Workspace, outcome: CaseOutcome, started: string[]): void {
  if (started.length > 0) outcome.failures.push(`${started.length} child process(es) started by a snapshot or restore: ${started.slice(0, 3).join('; ')}`);
  for (const marker of MARKERS) if (existsSync(nodePath.join(ws.root, marker))) outcome.failures.push(`a program of the workspace ran (${marker})`);
  if (storeBytes(ws) > STORE_CAP) outcome.failures.push(`the store holds ${storeBytes(ws)} bytes, above its cap of ${STORE_CAP}`);
}

/** Runs `body` in a fresh workspace, then removes it. */
export function workspaceCase(name: string, body: (ws: Workspace, outcome: CaseOutcome) => Promise<void>): HostileCase {
  return {
    name,
    run: async () => {
      const outcome = passed();
      const ws = makeWorkspace();
      try {
        await body(ws, outcome);
      } finally {
        rmSync(ws.base, { recursive: true, force: true });
      }
      return outcome;
    },
  };
}
