// Spawning the bundled child scripts of the fault families, and a small pool to run cases in parallel.
import { spawn, type ChildProcess } from 'node:child_process';
import * as nodePath from 'node:path';
import { createInterface } from 'node:readline';

/** Folder of the bundled fault scripts (runFaults.mjs bundles every entry point into one folder). */
export function bundleDir(): string {
  return process.env.FAULTS_DIST ?? __dirname;
}

export interface ChildRun {
  child: ChildProcess;
  /** Every stdout line, in order, as it arrived. */
  lines: string[];
  stderr: string[];
  /** Resolves with the exit code and signal once the child has exited and its stdout is drained. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node <bundle>/<script>.js ...args`; `onLine` sees each stdout line as it arrives. */
export function startChild(script: string, args: string[], onLine: (line: string) => void = () => undefined): ChildRun {
  const child = spawn(process.execPath, [nodePath.join(bundleDir(), `${script}.js`), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  const stdout = createInterface({ input: child.stdout });
  stdout.on('line', (line) => {
    lines.push(line);
    onLine(line);
  });
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const stdoutClosed = new Promise<void>((resolve) => stdout.once('close', resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  }).then(async (result) => {
    await stdoutClosed;
    return result;
  });
  return { child, lines, stderr, exited };
}

/** Runs `task(i)` for i in [0, count) with at most `parallel` at a time; results in index order. */
export async function runPool<T>(count: number, parallel: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return results;
}
