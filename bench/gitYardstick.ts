// git as the snapshot benches' yardstick (the product never starts git): a plain add and commit, the CPU its processes used, and the size of a folder.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as nodePath from 'node:path';
import { performance } from 'node:perf_hooks';

export function git(cwd: string, args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

/** Linux's USER_HZ: the unit of /proc's CPU times. */
const CLOCK_TICKS = 100;

/** CPU time (user + system, ms) of the child processes this process has waited for: Linux's /proc/self/stat, in clock ticks. */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
  // After the command name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
  return (Number(fields[13]) + Number(fields[14])) * (1000 / CLOCK_TICKS);
}

/** A plain commit of the folder as it is: wall time, and the CPU its two git processes used. */
export function gitCommit(cwd: string, message: string): { wallMs: number; cpuMs: number } {
  const cpu = childrenCpuMs();
  const start = performance.now();
  git(cwd, ['add', '-A']);
  git(cwd, ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '--no-verify', '-m', message]);
  return { wallMs: performance.now() - start, cpuMs: childrenCpuMs() - cpu };
}

/** The bytes of every file below `dir`. */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = nodePath.join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}
