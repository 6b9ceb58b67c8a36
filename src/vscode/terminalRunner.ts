// Runs run_command in a visible "@agent" terminal through shell integration, when the user prefers to watch commands run.
import * as vscode from 'vscode';
import { BoundedOutput } from '../core/tools/shellCommand';
import { cleanTerminalOutput } from '../core/tools/terminalOutput';
import type { CommandOptions, CommandResult } from '../core/tools/workspaceAccess';

const TERMINAL_NAME = '@agent';
/** How long a new terminal gets to activate shell integration before the hidden runner takes the command. */
const INTEGRATION_WAIT_MS = 5000;
/** After the timeout's Ctrl+C, how long the end of the command is awaited before giving up on it. */
const GIVE_UP_AFTER_MS = 5000;
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

/** Owns the "@agent" terminal; disposed with the extension. */
export class TerminalRunner implements vscode.Disposable {
  private terminal: vscode.Terminal | undefined;

  /** Resolves undefined when shell integration is not available (Windows, or a shell without it): use the hidden runner. */
  async run(command: string, cwd: string, options: CommandOptions): Promise<CommandResult | undefined> {
    if (process.platform === 'win32') return undefined;
    const terminal = this.terminalFor(cwd);
    terminal.show(true);
    const integration = await waitForIntegration(terminal);
    if (!integration) return undefined;
    return this.execute(integration, `cd ${quoted(cwd)} && ${command}`, terminal, options);
  }

  private terminalFor(cwd: string): vscode.Terminal {
    if (this.terminal && this.terminal.exitStatus === undefined) return this.terminal;
    this.terminal = vscode.window.createTerminal({ name: TERMINAL_NAME, cwd, iconPath: new vscode.ThemeIcon('hubot') });
    return this.terminal;
  }

  private async execute(integration: vscode.TerminalShellIntegration, commandLine: string, terminal: vscode.Terminal, options: CommandOptions): Promise<CommandResult> {
    const output = new BoundedOutput(options.maxOutputChars);
    let timedOut = false;
    let cancelled = false;
    const interrupt = (): void => terminal.sendText('\u0003', false);
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
    });
    const timer = setTimeout(() => {
      timedOut = true;
      interrupt();
    }, options.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      interrupt();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const reading = (async () => {
      for await (const data of execution.read()) output.push(data);
    })();
    // A shell that ignores Ctrl+C never reports the end: stop waiting a little after the timeout.
    let giveUpTimer: ReturnType<typeof setTimeout> | undefined;
    const giveUp = new Promise<undefined>((resolve) => {
      giveUpTimer = setTimeout(() => resolve(undefined), options.timeoutMs + GIVE_UP_AFTER_MS);
    });
    try {
      const exitCode = await Promise.race([ended, giveUp]);
      await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
      return { output: cleanTerminalOutput(output.text()), exitCode: exitCode ?? null, timedOut, cancelled, droppedChars: output.dropped };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      for (const listener of listeners) listener.dispose();
      clearTimeout(giveUpTimer);
    }
  }

  dispose(): void {
    this.terminal?.dispose();
    this.terminal = undefined;
  }
}
