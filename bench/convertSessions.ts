// Command line of scripts/convertSessions.mjs: converts one recorded session to a pi-format session file (gzipped when the name ends in .gz).
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { convertSession, piSessionJsonl, SESSION_KINDS, type SessionKind } from './sessionConverters';

const USAGE = `usage: node scripts/convertSessions.mjs <${SESSION_KINDS.join('|')}> <input> <output.jsonl[.gz]> [--source <text>] [--start <ISO time, for a format that records no times>]`;

/** The value after a flag, or undefined when the flag is absent; null when it is given without a value. */
function flag(argv: readonly string[], name: string): string | undefined | null {
  const at = argv.indexOf(name);
  return at < 0 ? undefined : (argv[at + 1] ?? null);
}

function main(argv: readonly string[]): number {
  const [kind, input, output] = argv;
  const source = flag(argv, '--source');
  const startText = flag(argv, '--start');
  const start = typeof startText === 'string' ? Date.parse(startText) : 0;
  if (!kind || !input || !output || !(SESSION_KINDS as readonly string[]).includes(kind) || source === null || startText === null || !Number.isFinite(start)) {
    console.error(USAGE);
    return 2;
  }
  const converted = convertSession(kind as SessionKind, readFileSync(input, 'utf8'), start);
  if (converted.entries.length === 0) {
    console.error(`${input}: no message could be read as a ${kind} session (${converted.skippedLines} unreadable lines or blocks); nothing written.`);
    return 1;
  }
  const id = output.replace(/^.*\//, '').replace(/\.jsonl(\.gz)?$/, '');
  const body = piSessionJsonl(id, kind as SessionKind, converted, source ?? input);
  writeFileSync(output, output.endsWith('.gz') ? gzipSync(body, { level: 9 }) : body);
  const calls = converted.entries.filter((line) => line.message.role === 'assistant').length;
  const outputs = converted.entries.filter((line) => line.message.role === 'toolResult').length;
  const skipped = converted.skippedLines > 0 ? `, ${converted.skippedLines} unreadable input lines or blocks left out` : '';
  console.log(`${output}: ${converted.entries.length} messages, ${calls} model calls, ${outputs} tool outputs${skipped}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
