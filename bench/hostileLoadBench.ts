// Row 10: a hostile 2 MB session (rings, cycles, damaged lines) against a healthy one of the same size: load time and peak memory as ratios; and a hostile .gitignore's longest event-loop block.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { healthySession, mixedHostileSession } from '../test/support/hostileSessions';
import { figureOf, row, verdictOf, type BenchRow } from './benchReport';
import { hostileGitignoreRows } from './hostileLoadGitignore';
import { median } from './timing';

const SIZE = 2 * 1024 * 1024;

interface LoadSample {
  cpuMs: number;
}

/** The child script run.mjs bundles beside bench.js: one load in a fresh process of its own (no benchmark code loaded). */
function childScript(): string {
  return nodePath.join(nodePath.dirname(process.argv[1] ?? ''), 'hostileLoadChild.js');
}

function runChild(file: string, heapMb?: number): Promise<LoadSample | undefined> {
  const limits = heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`, '--max-semi-space-size=1'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', ...limits, childScript(), file], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('close', (code) => {
      try {
        resolve(code === 0 ? (JSON.parse(out.trim().split('\n').at(-1) ?? '') as LoadSample) : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}

/**
 * Peak memory the load needs, as the smallest V8 heap (old space, 2 MB steps, young space pinned to 1 MB) it
 * completes in: what must be live at once, unlike resident memory, which follows the collector's pace.
 */
async function smallestHeapMb(copy: () => string): Promise<number> {
  let low = 2;
  let high = 512;
  while (high - low > 2) {
    const middle = Math.round((low + high) / 2);
    if (await runChild(copy(), middle)) high = middle;
    else low = middle;
  }
  return high;
}

export async function hostileLoadBench(iterations: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'compaction-bench-hostile-'));
  try {
    const sources = { healthy: nodePath.join(dir, 'healthy.src'), hostile: nodePath.join(dir, 'hostile.src') };
    writeFileSync(sources.healthy, healthySession(SIZE));
    writeFileSync(sources.hostile, mixedHostileSession(SIZE));
    const sizes = { healthy: readFileSync(sources.healthy).length, hostile: readFileSync(sources.hostile).length };
    let copies = 0;
    const copyOf = (kind: 'healthy' | 'hostile') => (): string => {
      // A fresh copy each time: the writable open repairs the hostile one in place.
      const file = nodePath.join(dir, `${kind}-${copies++}.jsonl`);
      copyFileSync(sources[kind], file);
      return file;
    };
    const times: Record<'healthy' | 'hostile', number[]> = { healthy: [], hostile: [] };
    for (let i = 0; i < iterations; i++) {
      for (const kind of ['healthy', 'hostile'] as const) {
        const sample = await runChild(copyOf(kind)());
        if (!sample) throw new Error(`the ${kind} load failed`);
        times[kind].push(sample.cpuMs);
      }
    }
    const heap = { healthy: await smallestHeapMb(copyOf('healthy')), hostile: await smallestHeapMb(copyOf('hostile')) };
    const timeRatio = median(times.hostile.map((cpuMs, k) => cpuMs / (times.healthy[k] ?? Number.NaN)));
    const memoryRatio = heap.hostile / heap.healthy;
    const context = `hostile ${(sizes.hostile / 1e6).toFixed(2)} MB (a forward ring over a third, two-cycles and self-parents over a third, cut lines, reused ids and missing parents over the rest) vs healthy ${(sizes.healthy / 1e6).toFixed(2)} MB; open (repair + quarantine) + path + verify in a fresh process, n=${iterations}`;
    return [
      row({
        key: 'hostileLoad.timeRatio',
        label: '10. hostile 2 MB session load / healthy one of the same size, CPU time',
        value: timeRatio,
        unit: '×',
        target: '< 3×',
        met: timeRatio < 3,
        detail: `${median(times.hostile).toFixed(0)} ms vs ${median(times.healthy).toFixed(0)} ms; ${context}`,
      }),
      row({
        key: 'hostileLoad.memoryRatio',
        label: '10. hostile 2 MB session load / healthy one, peak memory',
        value: memoryRatio,
        unit: '×',
        target: '< 3×',
        met: memoryRatio < 3,
        detail: `smallest V8 heap each load completes in (old space, 2 MB steps; young space 1 MB; the child script's own heap included): ${heap.hostile} MB vs ${heap.healthy} MB`,
      }),
      ...(await hostileGitignoreRows(iterations)),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Row 10's paragraph of "What limits each row", with this run's figures. */
export function hostileLoadLimits(rows: readonly BenchRow[]): string {
  const figure = figureOf(rows);
  return `10. **Hostile session load (${verdictOf(rows)('hostileLoad.timeRatio')}: ${figure('hostileLoad.timeRatio')} CPU, ${figure('hostileLoad.memoryRatio')} heap):** what remains is the work the damage itself asks for: one warning and one quarantine record per set-aside line (written in 1 MB batches), the parent-loop pass over every entry, and a cleaned copy of the file; nothing grows with the ring's length. The heap is measured as the smallest old space the load completes in (bisection in fresh processes), because resident size follows the collector's pace more than what is live. **Hostile .gitignore (${verdictOf(rows)('hostileLoad.gitignoreBlockMs')}: ${figure('hostileLoad.gitignoreBlockMs')}, ${figure('hostileLoad.gitignoreLargeFolderBlockMs')} with 2,000 files):** the rules are matched in steps linear in the name (the runs between stars found left to right, never backtracking) with a budget of 50,000 steps per entry, past which the entry is snapshotted; the walk pauses within a folder by counted work (256 entries, 50,000 matching steps, 2 MB read) or 2 ms, whichever comes first. What is left of a block is one slice plus whatever the shared machine takes from the process.`;
}
