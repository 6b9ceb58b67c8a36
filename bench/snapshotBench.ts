// Command snapshots against a plain `git add -A && git commit` of the same change (100 to 20k files), the first snapshot, the store after 100 commands, and after 10 changes of a 50 MB file.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { performance } from 'node:perf_hooks';
import { workspaceCommandSnapshots, type WorkspaceCommandSnapshots } from '../src/core/checkpoints/commandSnapshots';
import { BlobStore } from '../src/core/storage/blobStore';
import { nodeFileIo } from '../src/core/storage/fileIo';
import { row, type BenchRow } from './benchReport';
import { folderBytes, git, gitCommit } from './gitYardstick';
import { cpuNow, median } from './timing';

const TARGET_RATIO = 1;
const SIZES = [100, 1_000, 10_000, 20_000];
/** The .gitignore of every generated folder: typical rules, so the walk pays for matching them. */
const GITIGNORE = ['node_modules/', 'dist/', 'build/', '*.log', '.env', '.env.*', 'coverage/', '*.tmp', '.DS_Store', '/out', '**/cache/**', '!keep.log', ''].join('\n');

/** A source-like file of about 1 KB; `salt` makes each file's content its own. */
function sourceText(salt: string): string {
  return `// ${salt}\n${Array.from({ length: 24 }, (_, line) => `export const value${line} = '${salt}-${line}';`).join('\n')}\n`;
}

/** Writes `files` files in folders of 40 (nested two deep), a .gitignore and an ignored node_modules. */
function makeWorkspace(root: string, files: number): void {
  mkdirSync(root, { recursive: true });
  writeFileSync(nodePath.join(root, '.gitignore'), GITIGNORE);
  for (let n = 0; n < files - 1; n++) {
    const folder = nodePath.join(root, `pkg${Math.floor(n / 400)}`, `mod${Math.floor(n / 40) % 10}`);
    if (n % 40 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(nodePath.join(folder, `file${n}.ts`), sourceText(`${files}-${n}`));
  }
  mkdirSync(nodePath.join(root, 'node_modules', 'dep'), { recursive: true });
  for (let n = 0; n < 50; n++) writeFileSync(nodePath.join(root, 'node_modules', 'dep', `m${n}.js`), 'module.exports = 1;\n');
}

/** One command's change: three files edited, one created, the one created by the command before deleted. */
function applyChange(root: string, round: number, files: number): void {
  for (const n of [1, Math.floor(files / 2), files - 2]) {
    const file = nodePath.join(root, `pkg${Math.floor(n / 400)}`, `mod${Math.floor(n / 40) % 10}`, `file${n}.ts`);
    writeFileSync(file, sourceText(`edit ${round} of ${n}`));
  }
  writeFileSync(nodePath.join(root, `created${round}.ts`), sourceText(`created ${round}`));
  if (round > 0) unlinkSync(nodePath.join(root, `created${round - 1}.ts`));
}

interface Ours {
  snapshots: WorkspaceCommandSnapshots;
  store: BlobStore;
}

function ours(root: string, storage: string, watchFolders = true): Ours {
  const store = new BlobStore(nodePath.join(storage, 'blobs'), nodeFileIo);
  return { store, snapshots: workspaceCommandSnapshots({ roots: () => [root], isTrusted: () => true, sessionsDir: storage, watchFolders }) };
}

/** Our cost of one command: the snapshot before it and the one after (with the comparison), the change itself excluded. */
async function ourCommand(side: Ours, root: string, round: number, files: number): Promise<{ wallMs: number; cpuMs: number }> {
  const target = { store: side.store, maxBytes: 4 * 1024 * 1024 };
  const cpu = cpuNow();
  const start = performance.now();
  const pending = await side.snapshots.before(`round ${round}`, target);
  const beforeMs = performance.now() - start;
  const beforeCpu = cpuNow() - cpu;
  applyChange(root, round, files);
  const afterCpu = cpuNow();
  const afterStart = performance.now();
  const found = await pending.after();
  if (found.gap || found.changes.length !== (round > 0 ? 5 : 4)) throw new Error(`snapshot bench: round ${round} found ${found.changes.length} changes (${found.gap ?? 'no gap'})`);
  return { wallMs: beforeMs + (performance.now() - afterStart), cpuMs: beforeCpu + (cpuNow() - afterCpu) };
}

interface SizeResult {
  files: number;
  /** Our CPU over git's (its processes' CPU), summed over the rounds. */
  ratio: number;
  oursCpuMs: number;
  gitCpuMs: number;
  oursMs: number;
  gitMs: number;
  firstMs: number;
  firstCpuMs: number;
  firstGitMs: number;
  firstGitCpuMs: number;
}

async function measureSize(base: string, files: number, rounds: number, watchFolders = true): Promise<SizeResult> {
  const gitRoot = nodePath.join(base, `git-${files}`);
  const ourRoot = nodePath.join(base, `ours-${files}`);
  makeWorkspace(gitRoot, files);
  makeWorkspace(ourRoot, files);
  git(gitRoot, ['init', '-q']);
  const firstGit = gitCommit(gitRoot, 'first');
  const side = ours(ourRoot, nodePath.join(base, `storage-${files}`), watchFolders);
  const firstStart = performance.now();
  const firstCpu = cpuNow();
  await side.snapshots.turnStarted('first', { store: side.store, maxBytes: 4 * 1024 * 1024 });
  const firstCpuMs = cpuNow() - firstCpu;
  const firstMs = performance.now() - firstStart;
  const gitTimes: number[] = [];
  const ourTimes: number[] = [];
  let gitCpuMs = 0;
  let oursCpuMs = 0;
  // Warm-up, then interleaved rounds: both sides see the same machine load.
  applyChange(gitRoot, 0, files);
  gitCommit(gitRoot, 'warm-up');
  await ourCommand(side, ourRoot, 0, files);
  // No forced collection between rounds: one right before our snapshots makes V8 pay for it again inside them.
  for (let round = 1; round <= rounds; round++) {
    applyChange(gitRoot, round, files);
    const commit = gitCommit(gitRoot, `round ${round}`);
    gitTimes.push(commit.wallMs);
    gitCpuMs += commit.cpuMs;
    const command = await ourCommand(side, ourRoot, round, files);
    ourTimes.push(command.wallMs);
    oursCpuMs += command.cpuMs;
  }
  await side.snapshots.flush();
  return { files, ratio: oursCpuMs / gitCpuMs, oursCpuMs: oursCpuMs / rounds, gitCpuMs: gitCpuMs / rounds, oursMs: median(ourTimes), gitMs: median(gitTimes), firstMs, firstCpuMs, firstGitMs: firstGit.wallMs, firstGitCpuMs: firstGit.cpuMs };
}

/** 100 commands on a 1k-file folder: what the store holds against what the distinct contents weigh, and git's repository beside it. */
async function storeAfterCommands(base: string): Promise<{ storeBytes: number; distinctBytes: number; gitBytes: number }> {
  const files = 1_000;
  const ourRoot = nodePath.join(base, 'store-ours');
  const gitRoot = nodePath.join(base, 'store-git');
  makeWorkspace(ourRoot, files);
  makeWorkspace(gitRoot, files);
  git(gitRoot, ['init', '-q']);
  gitCommit(gitRoot, 'first');
  const storage = nodePath.join(base, 'store-storage');
  const side = ours(ourRoot, storage);
  let distinct = 0;
  for (const entry of readdirSync(ourRoot, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !entry.parentPath.includes('node_modules')) distinct += statSync(nodePath.join(entry.parentPath, entry.name)).size;
  }
  await side.snapshots.turnStarted('first', { store: side.store, maxBytes: 4 * 1024 * 1024 });
  for (let round = 0; round < 100; round++) {
    await ourCommand(side, ourRoot, round, files);
    applyChange(gitRoot, round, files);
    gitCommit(gitRoot, `round ${round}`);
    for (const n of [1, Math.floor(files / 2), files - 2]) distinct += Buffer.byteLength(sourceText(`edit ${round} of ${n}`));
    distinct += Buffer.byteLength(sourceText(`created ${round}`));
  }
  return { storeBytes: folderBytes(side.store.dir), distinctBytes: distinct, gitBytes: folderBytes(nodePath.join(gitRoot, '.git')) };
}

function removeSize(base: string, files: number): void {
  for (const name of [`git-${files}`, `ours-${files}`, `storage-${files}`]) rmSync(nodePath.join(base, name), { recursive: true, force: true });
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(0)} ms`;
}

export async function snapshotBench(quick: boolean): Promise<BenchRow[]> {
  const base = mkdtempSync(nodePath.join(tmpdir(), 'bench-snapshots-'));
  const rows: BenchRow[] = [];
  try {
    for (const files of SIZES) {
      // Enough rounds that git's CPU, counted in 10 ms ticks, is measured to a few per cent.
      const result = await measureSize(base, files, Math.round((quick ? 0.5 : 1) * (files >= 10_000 ? 15 : 41)));
      rows.push(
        row({
          key: `snapshots.commandRatio${files}`,
          label: `command snapshot vs git add+commit, ${files.toLocaleString('en-US')} files`,
          value: result.ratio,
          unit: '×',
          target: `≤ ${TARGET_RATIO}`,
          met: result.ratio <= TARGET_RATIO,
          detail: `CPU per command: before + after snapshots ${ms(result.oursCpuMs)} vs \`git add -A && git commit\` ${ms(result.gitCpuMs)} (its two processes); median wall ${ms(result.oursMs)} vs ${ms(result.gitMs)}; interleaved rounds of 3 edits, 1 new, 1 deleted file; first snapshot ${ms(result.firstMs)} vs git's first commit ${ms(result.firstGitMs)} (wall)`,
        }),
      );
      if (files === 10_000) {
        rows.push(row({ key: 'snapshots.firstCpuMs10000', label: 'first snapshot of a folder, 10,000 files (10 MB), CPU', value: result.firstCpuMs, unit: 'ms', target: '', met: null, detail: `every file read, hashed and stored once; ${ms(result.firstMs)} wall; git's first add+commit of the same folder ${ms(result.firstGitCpuMs)} CPU, ${ms(result.firstGitMs)} wall` }));
      }
      removeSize(base, files);
    }
    // Where no folder watch can vouch (other platforms, network folders), both snapshots look at every file.
    const unwatched = await measureSize(base, 20_000, Math.round((quick ? 0.5 : 1) * 15), false);
    removeSize(base, 20_000);
    rows.push(
      row({
        key: 'snapshots.commandRatioUnwatched20000',
        label: 'command snapshot vs git add+commit, 20,000 files, no folder watch',
        value: unwatched.ratio,
        unit: '×',
        target: '',
        met: null,
        detail: `both snapshots look at every file (platforms and file systems where the watch cannot vouch): CPU per command ${ms(unwatched.oursCpuMs)} vs git's ${ms(unwatched.gitCpuMs)}; median wall ${ms(unwatched.oursMs)} vs ${ms(unwatched.gitMs)}`,
      }),
    );
    const store = await storeAfterCommands(base);
    const ratio = store.storeBytes / store.distinctBytes;
    rows.push(
      row({
        key: 'snapshots.storeAfter100',
        label: 'snapshot store after 100 commands (1,000 files)',
        value: ratio,
        unit: '×',
        target: '≤ 1.05 of the distinct contents',
        met: ratio <= 1.05,
        detail: `${(store.storeBytes / 1024 / 1024).toFixed(2)} MB stored for ${(store.distinctBytes / 1024 / 1024).toFixed(2)} MB of distinct file contents (nothing stored twice, compressed); git's repository for the same 100 commits ${(store.gitBytes / 1024 / 1024).toFixed(2)} MB`,
      }),
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return rows;
}
