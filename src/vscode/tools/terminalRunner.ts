// Runs run_command in a visible "@agent" terminal through shell integration, when the user prefers to watch commands run.
import * as vscode from 'vscode';
import { stopCommand, TerminalPool, type StoppableTerminal } from '../../core/tools/commandStop';
import { killDescendants } from '../../core/tools/processTree';
import { BoundedOutput } from '../../core/tools/shellCommand';
import { cleanTerminalOutput } from '../../core/tools/terminalOutput';
import type { CommandOptions, CommandResult } from '../../core/tools/workspaceAccess';

const TERMINAL_NAME = '@agent';
/** How long a new terminal gets to activate shell integration before the hidden runner takes the command. */
const INTEGRATION_WAIT_MS = 5000;
/** After the command ends, how long its last output is still read. */
const DRAIN_MS = 300;

/** POSIX single quotes: the folder name cannot end the quote or start a second command. */
function quoted(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

function waitForIntegration(terminal: vscode.Terminal): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) return Promise.resolve(terminal.shellIntegration);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      listener.dispose();
      resolve(undefined);
    }, INTEGRATION_WAIT_MS);
    const listener = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal !== terminal) return;
      clearTimeout(timer);
      listener.dispose();
      resolve(event.shellIntegration);
    });
  });
}

/** The "@agent" terminal as the stop sequence sees it. */
function stoppable(terminal: vscode.Terminal): StoppableTerminal {
  return {
    interrupt: () => terminal.sendText('\u0003', false),
    shellPid: () => Promise.resolve(terminal.processId),
    killBelow: (shell) => killDescendants(shell),
    close: () => terminal.dispose(),
  };
}

/**
 * Owns the "@agent" terminals; disposed with the extension. A terminal is reused only when its last command is
 * known to have ended: one still running (another chat's command) is left alone and a new one opened; one whose
 * command was not seen to end even after the kill is closed, with what still runs in it.
 */
export class TerminalRunner implements vscode.Disposable {
  private readonly pool = new TerminalPool<vscode.Terminal>((terminal) => terminal.exitStatus !== undefined);

  /** Resolves undefined when shell integration is not available (Windows, or a shell without it): use the hidden runner. */
  async run(command: string, cwd: string, options: CommandOptions): Promise<CommandResult | undefined> {
    if (process.platform === 'win32') return undefined;
    const terminal = this.terminalFor(cwd);
    terminal.show(true);
    const integration = await waitForIntegration(terminal);
    if (!integration) {
      this.pool.release(terminal);
      return undefined;
    }
    const { result, ended } = await this.execute(integration, `cd ${quoted(cwd)} && ${command}`, terminal, options);
    this.pool.finished(terminal, ended);
    return result;
  }

  /** An idle "@agent" terminal, or a new one; a stuck one is closed after what still runs in it is killed. */
  private terminalFor(cwd: string): vscode.Terminal {
    const idle = this.pool.take((stuck) => void this.retire(stuck));
    if (idle) return idle;
    const created = vscode.window.createTerminal({ name: TERMINAL_NAME, cwd, iconPath: new vscode.ThemeIcon('hubot') });
    this.pool.add(created);
    return created;
  }

  /** Closes a terminal whose command may still run, after killing everything below its shell. */
  private async retire(terminal: vscode.Terminal): Promise<void> {
    const shell = await terminal.processId;
    if (shell !== undefined) await killDescendants(shell);
    terminal.dispose();
  }

  private async execute(integration: vscode.TerminalShellIntegration, commandLine: string, terminal: vscode.Terminal, options: CommandOptions): Promise<{ result: CommandResult; ended: boolean }> {
    const output = new BoundedOutput(options.maxOutputChars);
    let timedOut = false;
    let cancelled = false;
    let exited = false;
    const execution = integration.executeCommand(commandLine);
    // A command that ends the shell itself (`exit 3`) closes the terminal instead of ending an execution.
    const listeners: vscode.Disposable[] = [];
    const ended = new Promise<number | undefined>((resolve) => {
      listeners.push(
        vscode.window.onDidEndTerminalShellExecution((event) => {
          if (event.execution === execution) resolve(event.exitCode);
        }),
        vscode.window.onDidCloseTerminal((closed) => {
          if (closed === terminal) resolve(closed.exitStatus?.code);
        }),
      );
    }).then((code) => {
      exited = true;
      return code;
    });
    let stopping = false;
    let markStopped: () => void = () => undefined;
    // Settles once a stop has run its course (interrupt, kill, close), whether or not the end was seen.
    const stopped = new Promise<undefined>((resolve) => (markStopped = () => resolve(undefined)));
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void stopCommand(stoppable(terminal), ended).then(markStopped, markStopped);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    const reading = (async () => {
      for await (const data of execution.read()) output.push(data);
    })();
    try {
      const exitCode = await Promise.race([ended, stopped]);
      await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
      return { result: { output: cleanTerminalOutput(output.text()), exitCode: exitCode ?? null, timedOut, cancelled, droppedChars: output.dropped }, ended: exited };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      for (const listener of listeners) listener.dispose();
    }
  }

  dispose(): void {
    for (const terminal of this.pool.all()) terminal.dispose();
    this.pool.clear();
  }
}
