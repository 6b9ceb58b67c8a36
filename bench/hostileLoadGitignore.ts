// Row 10, hostile .gitignore: the longest event-loop block while a command snapshot first walks a folder whose .gitignore holds 5,000 rules like *aaaa…(150)…b* (the finding: 10–17 s in one block).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { performance } from 'node:perf_hooks';
import { takeFolderSnapshot } from '../src/core/checkpoints/folderSnapshot';
import { FolderRules } from '../src/core/checkpoints/ignoreFiles';
import { StatIndex } from '../src/core/checkpoints/statIndex';
import { StoreBudget } from '../src/core/checkpoints/storeBudget';
import { nextTurn } from '../src/core/checkpoints/walkSlices';
import { BlobStore } from '../src/core/storage/blobStore';
import { nodeFileIo } from '../src/core/storage/fileIo';
import { ms, row, type BenchRow } from './benchReport';
import { collectGarbage, cpuNow, gapTicker, median } from './timing';

const RULES = 5000;
const BLOCK_TARGET_MS = 50;

interface WalkSample {
  /** Longest gap between two turns of a setImmediate ticker running beside the snapshot (wall time). */
  longestMs: number;
  /** The most processor time one slice of the walk took (between two of its pauses). */
  slowestSliceCpuMs: number;
  totalMs: number;
  cpuMs: number;
  overBudget: number;
  files: number;
}

/** A folder with the hostile .gitignore (within its caps: 1 MB, 5,000 rules) and `files` files named by 241 characters. */
function hostileFolder(dir: string, files: number): string {
  const root = nodePath.join(dir, `ws-${files}`);
  mkdirSync(root);
  writeFileSync(nodePath.join(root, '.gitignore'), Array.from({ length: RULES }, (_, k) => `*${'a'.repeat(150)}b${k}*`).join('\n'));
  for (let k = 0; k < files; k++) writeFileSync(nodePath.join(root, `${'a'.repeat(235)}${String(k).padStart(6, '0')}`), '');
  return root;
}

/** One first snapshot of the folder (a fresh index and rules, as at the start of a request) with a ticker beside it. */
async function sampleWalk(root: string, store: BlobStore): Promise<WalkSample> {
  collectGarbage();
  let sliceStart = cpuNow();
  let slowestSlice = 0;
  const pause = async (): Promise<void> => {
    slowestSlice = Math.max(slowestSlice, cpuNow() - sliceStart);
    await nextTurn({ entries: 0, matchSteps: 0, bytes: 0 });
    sliceStart = cpuNow();
  };
  const ticker = gapTicker();
  const start = performance.now();
  const cpuStart = cpuNow();
  const index = new StatIndex();
  const snapshot = await takeFolderSnapshot(root, index, new FolderRules(), { store, maxBytes: 1024 * 1024, caps: { maxFiles: 50_000, maxBytes: 1024 ** 3 }, budget: new StoreBudget(store.dir, () => Number.POSITIVE_INFINITY), pause });
  const totalMs = performance.now() - start;
  const cpuMs = cpuNow() - cpuStart;
  slowestSlice = Math.max(slowestSlice, cpuNow() - sliceStart);
  const longest = await ticker.stop();
  return { longestMs: longest, slowestSliceCpuMs: slowestSlice, totalMs, cpuMs, overBudget: snapshot.overBudget, files: index.entries.size };
}

function gitignoreRow(files: number, samples: readonly WalkSample[], key: string): BenchRow {
  const longest = median(samples.map((sample) => sample.longestMs));
  const first = samples[0] as WalkSample;
  return row({
    key,
    label: `10. hostile .gitignore (${RULES.toLocaleString('en-US')} rules *a…(150)…b*), ${files.toLocaleString('en-US')} files of 241-character names: longest event-loop block of the first snapshot`,
    value: longest,
    unit: 'ms',
    target: `≤ ${BLOCK_TARGET_MS} ms`,
    met: longest <= BLOCK_TARGET_MS,
    detail: `wall time, median of ${samples.length}; slowest slice ${ms(median(samples.map((sample) => sample.slowestSliceCpuMs)))} CPU; the whole snapshot ${ms(median(samples.map((sample) => sample.totalMs)))} wall, ${ms(median(samples.map((sample) => sample.cpuMs)))} CPU; ${first.overBudget} of ${files} names past the matching budget (snapshotted), ${first.files} files kept`,
  });
}

/** The rows: the finding's folder (40 files), and one folder 50 times larger (the walk pauses within it). */
export async function hostileGitignoreRows(iterations: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'compaction-bench-gitignore-'));
  try {
    const store = new BlobStore(nodePath.join(dir, 'blobs'), nodeFileIo);
    const rows: BenchRow[] = [];
    for (const [files, key] of [
      [40, 'hostileLoad.gitignoreBlockMs'],
      [2000, 'hostileLoad.gitignoreLargeFolderBlockMs'],
    ] as const) {
      const root = hostileFolder(dir, files);
      const samples: WalkSample[] = [];
      for (let k = 0; k < iterations; k++) samples.push(await sampleWalk(root, store));
      rows.push(gitignoreRow(files, samples, key));
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
