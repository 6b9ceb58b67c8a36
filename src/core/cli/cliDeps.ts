// What CLI command handlers depend on: output sinks, file I/O and the token counter (injected so tests can swap them).
import type { ChatMessage } from '../context/chatMessage';
import type { FileIo } from '../storage/fileIo';
import type { OptionSpec, ParsedArgs } from './cliArgs';

/** The part of TokenCounter the `context` command uses; tests may inject a stub. */
export interface MessageCounter {
  readonly encoding: string;
  /** True when the encoding is the model's own tokenizer (OpenAI models). */
  readonly exact: boolean;
  countMessages(messages: readonly ChatMessage[]): number;
}

export interface CliDeps {
  io: FileIo;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Loads the counter for a model id (the default is gpt-tokenizer's TokenCounter). */
  createCounter: (model: string) => Promise<MessageCounter>;
}

/** A command: the options it takes (any other is a usage error) and its handler, which resolves to the exit code. */
export interface CliCommand {
  options: OptionSpec;
  run: (args: ParsedArgs, deps: CliDeps) => Promise<number>;
}
