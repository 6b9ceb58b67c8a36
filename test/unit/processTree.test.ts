// Stopping a terminal's command for real: every process below the shell is found (whatever its process group) and killed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { descendantsOf, killDescendants, parseProcessTable, readProcessTable } from '../../src/core/tools/processTree';

/** Running (a zombie waiting for its parent to reap it runs nothing): from /proc where there is one, else by signal 0. */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    try {
      process.kill(pid, 0);
      return process.platform !== 'linux';
    } catch {
      return false;
    }
  }
};

describe('the process tree below a shell', () => {
  it('parses ps output and walks children before grandchildren, ignoring loops and strangers', () => {
    const table = parseProcessTable(' 10 1\n 11 10\n 12 11\n 13 10\nnoise\n 20 1\n 30 30\n');
    expect(descendantsOf(10, table)).toEqual([11, 13, 12]);
    expect(descendantsOf(30, table)).toEqual([]);
    expect(descendantsOf(99, table)).toEqual([]);
  });

  it('kills a command that ignores Ctrl+C, its own children in other process groups, and leaves the shell', async () => {
    // A "shell" whose command sits in its own session and ignores SIGINT, with a child of its own.
    const shell = spawn('bash', ['-c', 'setsid bash -c \'trap "" INT; sleep 300 & sleep 300; wait\' & wait'], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const before = descendantsOf(shell.pid as number, await readProcessTable());
    expect(before.length).toBeGreaterThanOrEqual(3);
    for (const pid of before) process.kill(pid, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(before.filter(alive).length).toBeGreaterThan(0);
    const killed = await killDescendants(shell.pid as number);
    expect(killed).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(before.filter(alive)).toEqual([]);
    shell.kill('SIGKILL');
  });
});
