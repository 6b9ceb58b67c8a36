// Argv parsing for the CLI through node:util parseArgs, strict: each command declares its options, anything else is a usage error.
import { parseArgs as parseNodeArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface ParsedArgs {
  positionals: string[];
  options: Map<string, string>;
  switches: Set<string>;
}

/** A command's options: `--name value` ('string') or a `--name` switch ('boolean'). */
export type OptionSpec = Readonly<Record<string, 'string' | 'boolean'>>;

/**
 * The CLI has no single-dash options, so after an option that takes a value, a token with one leading dash is
 * that value: an entry id such as `-K6QZx8o` (ids are base64url) or `-5` (reported as a bad number, not as a
 * missing value). A `--` token is always an option, so no option swallows another.
 */
function isDashValue(token: string | undefined): token is string {
  return token !== undefined && token.startsWith('-') && !token.startsWith('--');
}

/** `--name -x` as `--name=-x`, which parseArgs accepts without calling it ambiguous. */
function joinDashValues(argv: readonly string[], spec: OptionSpec): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    if (arg === '--') {
      joined.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('--') && spec[arg.slice(2)] === 'string' && isDashValue(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

function optionList(spec: OptionSpec): string {
  const names = Object.keys(spec).map((name) => `--${name}`);
  return names.length > 0 ? names.join(', ') : 'no options';
}

/** The first problem in argv, in words; parseArgs found one, this names the option the way a person typed it. */
function describeProblem(argv: readonly string[], spec: OptionSpec, command: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return undefined;
    if (!arg.startsWith('-') || arg === '-') continue;
    const equals = arg.indexOf('=');
    const flag = arg.startsWith('--') && equals > 0 ? arg.slice(0, equals) : arg;
    const inline = flag === arg ? undefined : arg.slice(equals + 1);
    const name = flag.startsWith('--') ? flag.slice(2) : '';
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (kind === undefined) return `unknown option ${flag} for ${command} (it takes ${optionList(spec)})`;
    if (kind === 'boolean' && inline !== undefined) return `option ${flag} takes no value`;
    if (kind === 'string' && inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined) return `option ${flag} needs a value`;
      if (next.startsWith('--')) return `option ${flag} needs a value, not the option ${next} (write ${flag}=${next} for a value that starts with dashes)`;
      i++;
    }
  }
  return undefined;
}

function isParseArgsError(error: unknown): error is Error {
  const code: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/**
 * Parses a command's arguments strictly: an option the command does not declare is an error, a switch never takes
 * a value, and an option never takes the next flag as its value (so no flag swallows the argument after it).
 */
export function parseArgs(argv: readonly string[], spec: OptionSpec, command: string): ParsedArgs {
  const options = Object.fromEntries(Object.entries(spec).map(([name, type]) => [name, { type }]));
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseNodeArgs({ args: joinDashValues(argv, spec), options, strict: true, allowPositionals: true }));
  } catch (error) {
    if (!isParseArgsError(error)) throw error;
    throw new UsageError(describeProblem(argv, spec, command) ?? (error.message.split('\n')[0] ?? error.message));
  }
  const parsed: ParsedArgs = { positionals, options: new Map(), switches: new Set() };
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') parsed.options.set(name, value);
    else if (value === true) parsed.switches.add(name);
  }
  return parsed;
}

/** The single positional file argument of a command. */
export function requireFile(args: ParsedArgs, command: string): string {
  const file = args.positionals[0];
  if (!file || args.positionals.length > 1) throw new UsageError(`usage: ${command} <session.jsonl>`);
  return file;
}

/** A `--name N` token count: a positive whole number, else a usage error naming the option. */
export function positiveIntegerOption(args: ParsedArgs, name: string, fallback: number): number {
  const raw = args.options.get(name);
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive whole number of tokens, got "${raw}"`);
  return value;
}

/** A `--name a,b,c` list; empty items are dropped. */
export function listOption(args: ParsedArgs, name: string): string[] | undefined {
  const raw = args.options.get(name);
  if (raw === undefined) return undefined;
  return raw.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
}
