// Minimal argv parsing for the CLI: positionals, `--flag value` options and boolean switches.
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

/** `booleans` lists the switches that take no value (e.g. json); every other `--name` takes the next argument. */
export function parseArgs(argv: readonly string[], booleans: readonly string[] = ['json']): ParsedArgs {
  const parsed: ParsedArgs = { positionals: [], options: new Map(), switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      parsed.positionals.push(arg);
      continue;
    }
    const name = arg.slice(2);
    if (booleans.includes(name)) {
      parsed.switches.add(name);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined) throw new UsageError(`option --${name} needs a value`);
    parsed.options.set(name, value);
    i++;
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
