// Runs one shell command with a timeout, cancellation and bounded memory (shared by the node and VS Code ports).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { CommandResult } from './workspaceAccess';

export interface ShellOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputChars: number;
  signal?: AbortSignal;
}

/** Keeps the first and last halves of a stream of text, counting what fell out in between. */
export class BoundedOutput {
  private head = '';
  private tail = '';
  dropped = 0;
  constructor(private readonly limit: number) {}

  push(text: string): void {
    const half = Math.floor(this.limit / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    this.tail += text;
    if (this.tail.length > this.limit - half) {
      const excess = this.tail.length - (this.limit - half);
      this.dropped += excess;
      this.tail = this.tail.slice(excess);
    }
  }

  text(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.dropped} characters of output dropped ...]\n${this.tail}`;
  }
}

function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // Negative pid: the whole process group, so `sh -c "a | b"` does not leave children behind.
    process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
  } catch {
    return;
  }
}

/** After the command exits, how long its output is still read before a pipe held open by a background process it started is abandoned. */
export const DRAIN_GRACE_MS = 500;
/** After a kill (timeout or cancel), how long to wait for the exit before the output is abandoned anyway. */
const KILL_GRACE_MS = 2_000;

const HELD_OPEN_NOTE = `\n[a background process started by the command kept its output open; stopped reading ${DRAIN_GRACE_MS} ms after the command exited and left that process running]`;
const NO_EXIT_NOTE = '\n[the command did not exit after it was killed; its output was abandoned]';

/**
 * The command in its own process group (so a kill reaches its children), stdout and stderr into `output`. stdin is
 * ignored: a command that reads it (cat, read) sees end of input instead of waiting for the timeout.
 */
function spawnShell(command: string, cwd: string, output: BoundedOutput): ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn(command, { cwd, shell: true, detached: process.platform !== 'win32', windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
  return child;
}

/**
 * Never rejects for a failing command: the exit code, timeout and cancellation are in the result. Resolves at
 * most DRAIN_GRACE_MS after the command itself exits, even when an escaped child (`setsid x &`) holds the pipes.
 */
export function runShellCommand(command: string, options: ShellOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    const output = new BoundedOutput(options.maxOutputChars);
    let timedOut = false;
    let cancelled = options.signal?.aborted ?? false;
    if (cancelled) {
      resolve({ output: '', exitCode: null, timedOut: false, cancelled: true, droppedChars: 0 });
      return;
    }
    const child = spawnShell(command, options.cwd, output);
    let exitCode: number | null = null;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (note?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const text = note === undefined ? output.text() : `${output.text().trimEnd()}${note}`;
      resolve({ output: text, exitCode, timedOut, cancelled, droppedChars: output.dropped });
    };
    const abandonAfter = (delayMs: number, note: string): void => {
      clearTimeout(drainTimer);
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(note);
      }, delayMs);
    };
    const kill = (): void => {
      killTree(child.pid);
      if (drainTimer === undefined) abandonAfter(KILL_GRACE_MS, NO_EXIT_NOTE);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      kill();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => finish(`\n[could not start the command: ${error.message}]`));
    child.on('exit', (code) => {
      exitCode = code;
      abandonAfter(DRAIN_GRACE_MS, HELD_OPEN_NOTE);
    });
    child.on('close', (code) => {
      exitCode = exitCode ?? code;
      finish();
    });
  });
}
