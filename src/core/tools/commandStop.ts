// Stopping a command a terminal runs, for real: interrupt, then kill everything below the shell, then close the terminal; and which terminal may take the next command.

/** What stopping needs from a terminal (VS Code's, or a stand-in in tests). */
export interface StoppableTerminal {
  /** Ctrl+C to the foreground job. */
  interrupt(): void;
  /** The shell's pid, when known. */
  shellPid(): Promise<number | undefined>;
  /** Kills everything below the shell; resolves how many were signalled. */
  killBelow(shell: number): Promise<number>;
  /** Closes the terminal (its shell gets SIGHUP). */
  close(): void;
}

export interface StopTimings {
  /** How long the command gets to end after Ctrl+C. */
  interruptGraceMs: number;
  /** How long after the kill before the terminal is closed. */
  killGraceMs: number;
}

export const STOP_TIMINGS: StopTimings = { interruptGraceMs: 1500, killGraceMs: 1000 };

/** How a stop ended: the command obeyed Ctrl+C, died to the kill, or its terminal had to be closed. */
export type StopOutcome = 'interrupted' | 'killed' | 'closed';

/** Resolves true when `ended` settles within `ms`, false otherwise (the timer never outlives the race). */
function within(ended: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([ended.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** Ctrl+C; after the grace, a kill of everything below the shell (twice: nothing forked in between survives); after that, the terminal is closed. */
export async function stopCommand(terminal: StoppableTerminal, ended: Promise<unknown>, timings: StopTimings = STOP_TIMINGS): Promise<StopOutcome> {
  terminal.interrupt();
  if (await within(ended, timings.interruptGraceMs)) return 'interrupted';
  const shell = await terminal.shellPid();
  if (shell !== undefined) {
    await terminal.killBelow(shell);
    await terminal.killBelow(shell);
  }
  if (await within(ended, timings.killGraceMs)) return 'killed';
  terminal.close();
  return 'closed';
}

export type TerminalState = 'idle' | 'running' | 'stuck';

/**
 * The terminals commands run in, by state. `take` gives an idle open terminal, never a running one (another
 * chat's command) nor a stuck one (its command was not seen to end): stuck ones are handed back to be closed.
 */
export class TerminalPool<T> {
  private readonly states = new Map<T, TerminalState>();

  constructor(private readonly isClosed: (terminal: T) => boolean) {}

  /** An idle terminal, or undefined (open a new one and `add` it); `retire` receives every stuck terminal. */
  take(retire: (terminal: T) => void): T | undefined {
    let idle: T | undefined;
    for (const [terminal, state] of [...this.states]) {
      if (this.isClosed(terminal)) this.states.delete(terminal);
      else if (state === 'stuck') {
        this.states.delete(terminal);
        retire(terminal);
      } else if (state === 'idle') idle ??= terminal;
    }
    if (idle !== undefined) this.states.set(idle, 'running');
    return idle;
  }

  /** A new terminal, running its first command. */
  add(terminal: T): void {
    this.states.set(terminal, 'running');
  }

  /** After a command: idle again when its end was seen, stuck otherwise; dropped when the terminal closed. */
  finished(terminal: T, ended: boolean): void {
    if (this.isClosed(terminal)) this.states.delete(terminal);
    else this.states.set(terminal, ended ? 'idle' : 'stuck');
  }

  /** Integration never came: the terminal ran nothing and may take the next command. */
  release(terminal: T): void {
    if (this.states.has(terminal)) this.states.set(terminal, 'idle');
  }

  all(): T[] {
    return [...this.states.keys()];
  }

  clear(): void {
    this.states.clear();
  }
}
