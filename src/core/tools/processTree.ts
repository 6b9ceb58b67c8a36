// Finds and kills every process below a shell (the commands a terminal runs sit in their own process groups, out of reach of a group kill).
import { execFile } from 'node:child_process';

export interface ProcessRow {
  pid: number;
  ppid: number;
}

/** Parses `ps -A -o pid=,ppid=` output; lines that are not two numbers are skipped. */
export function parseProcessTable(text: string): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
    if (match) rows.push({ pid: Number(match[1]), ppid: Number(match[2]) });
  }
  return rows;
}

/** Every process below `root` (not `root` itself), children before their own children; linear in the table. */
export function descendantsOf(root: number, table: readonly ProcessRow[]): number[] {
  const children = new Map<number, number[]>();
  for (const row of table) {
    const list = children.get(row.ppid) ?? [];
    list.push(row.pid);
    children.set(row.ppid, list);
  }
  const found: number[] = [];
  const seen = new Set<number>([root]);
  const queue = [root];
  for (let at = 0; at < queue.length; at++) {
    for (const child of children.get(queue[at] as number) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The process table from `ps` (POSIX); empty when it cannot be read within 2 s. */
export function readProcessTable(): Promise<ProcessRow[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 2000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => resolve(error ? [] : parseProcessTable(stdout)));
  });
}

/**
 * Kills everything below `root` with SIGKILL (deepest last found, all at once: nothing gets to respawn) and
 * returns how many processes were signalled. The shell itself is left to its owner (the terminal's dispose).
 */
export async function killDescendants(root: number, table?: readonly ProcessRow[]): Promise<number> {
  const below = descendantsOf(root, table ?? (await readProcessTable()));
  let signalled = 0;
  for (const pid of below) {
    try {
      process.kill(pid, 'SIGKILL');
      signalled++;
    } catch {
      // Already gone.
    }
  }
  return signalled;
}
