// run_command: a shell command in the workspace, confirmed by the user, with a timeout and bounded output.
import { defineTool } from './defineTool';
import type { Tool } from './toolTypes';

export const runCommandTool: Tool = defineTool(
  'run_command',
  'Run a shell command in the workspace folder (the user confirms it first). Output is stdout and stderr combined; long output is shortened.',
  {
    command: { type: 'string', description: 'The shell command line.', required: true },
    cwd: { type: 'string', description: 'Folder to run in, relative to the workspace folder (default the root).' },
    timeoutSeconds: { type: 'integer', description: 'Stop the command after this many seconds.', minimum: 1 },
  },
  async (args, context) => {
    if (args.command.trim() === '') return { text: 'run_command: "command" must not be empty.', isError: true };
    const timeoutMs = Math.min((args.timeoutSeconds ?? Infinity) * 1000, context.limits.commandTimeoutMs);
    const result = await context.workspace.runCommand(args.command, {
      cwd: args.cwd,
      timeoutMs,
      maxOutputChars: context.limits.commandOutputChars,
      signal: context.signal,
    });
    const output = result.output.trimEnd() || '[no output]';
    if (result.cancelled) return { text: `${output}\n[cancelled by the user]`, isError: true };
    if (result.timedOut) return { text: `${output}\n[stopped after ${Math.round(timeoutMs / 1000)} s: timed out]`, isError: true };
    const status = result.exitCode === 0 ? '' : `\n[exit code ${result.exitCode ?? 'unknown'}]`;
    return { text: output + status, isError: result.exitCode !== 0 };
  },
);
