// What CLI command handlers depend on: output sinks, file I/O and the token counter (injected so tests and the real tokenizer can swap them).
import type { FileIo } from '../storage/fileIo';
import type { CountTokens } from './roughTokenCount';
import type { ParsedArgs } from './cliArgs';

export interface CliDeps {
  io: FileIo;
  out: (text: string) => void;
  err: (text: string) => void;
  countTokens: CountTokens;
}

/** A command handler: resolves to the process exit code. */
export type CliCommand = (args: ParsedArgs, deps: CliDeps) => Promise<number>;
