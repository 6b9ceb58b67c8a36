// Dispatches a CLI command and turns every failure into a one-line message and an exit code (never a stack trace).
import { nodeFileIo } from '../storage/fileIo';
import { TokenCounter } from '../tokens/tokenCounter';
import { parseArgs, UsageError } from './cliArgs';
import type { CliCommand, CliDeps } from './cliDeps';
import { contextCommand } from './contextCommand';
import { importCommand } from './importCommand';
import { inspectCommand } from './inspectCommand';
import { verifyCommand } from './verifyCommand';

export const USAGE = [
  'usage: compaction-agent <command> ...',
  '  import --from pi <in.jsonl> --out <session.jsonl>',
  '  inspect <session.jsonl> [--context-window N] [--max-output N] [--model ID] [--leaf ID]',
  '          [--system TEXT] [--protected-tools a,b] [--prune-minimum N] [--prune-protect N] [--json]',
  '  context <session.jsonl> [--leaf ID] [--model ID] [--system TEXT] [--json]',
  '  verify <session.jsonl> [--json]',
].join('\n');

export const COMMANDS: Record<string, CliCommand> = { import: importCommand, inspect: inspectCommand, context: contextCommand, verify: verifyCommand };

export function defaultCliDeps(): CliDeps {
  return {
    io: nodeFileIo,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    createCounter: (model) => TokenCounter.create(model),
  };
}

/** Exit codes: 0 success, 1 the input could not be processed, 2 bad usage. */
export async function runCli(argv: readonly string[], deps: CliDeps = defaultCliDeps()): Promise<number> {
  const [name, ...rest] = argv;
  const command = name === undefined || !Object.hasOwn(COMMANDS, name) ? undefined : COMMANDS[name];
  if (name === undefined || !command) {
    deps.err(name === undefined || name === '--help' ? USAGE : `error: unknown command "${name}"\n${USAGE}`);
    return name === '--help' ? 0 : 2;
  }
  try {
    return await command.run(parseArgs(rest, command.options, name), deps);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.err(`error: ${message.split('\n')[0] ?? message}`);
    return error instanceof UsageError ? 2 : 1;
  }
}
