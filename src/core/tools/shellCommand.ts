// Runs one shell command with a timeout, cancellation and bounded memory (shared by the node and VS Code ports).
import { spawn } from 'node:child_process';
import type { CommandResult } from './workspaceAccess';

export interface ShellOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputChars: number;
  signal?: AbortSignal;
}

/** Keeps the first and last halves of a stream of text, counting what fell out in between. */
class BoundedOutput {
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

/** Never rejects for a failing command: the exit code, timeout and cancellation are in the result. */
export function runShellCommand(command: string, options: ShellOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    const output = new BoundedOutput(options.maxOutputChars);
    let timedOut = false;
    let cancelled = options.signal?.aborted ?? false;
    if (cancelled) {
      resolve({ output: '', exitCode: null, timedOut: false, cancelled: true, droppedChars: 0 });
      return;
    }
    const child = spawn(command, { cwd: options.cwd, shell: true, detached: process.platform !== 'win32', windowsHide: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid);
    }, options.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      killTree(child.pid);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null, spawnError?: Error): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (spawnError) output.push(`\n[could not start the command: ${spawnError.message}]`);
      resolve({ output: output.text(), exitCode, timedOut, cancelled, droppedChars: output.dropped });
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code));
  });
}
