// Command line of scripts/convertSessions.mjs: converts one recorded session to a pi-format session file (gzipped when the name ends in .gz).
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { convertSession, piSessionJsonl, SESSION_KINDS, type SessionKind } from './sessionConverters';

const USAGE = `usage: node scripts/convertSessions.mjs <${SESSION_KINDS.join('|')}> <input> <output.jsonl[.gz]> [--source <text>]`;

function main(argv: readonly string[]): number {
  const [kind, input, output] = argv;
  const sourceAt = argv.indexOf('--source');
  if (!kind || !input || !output || !(SESSION_KINDS as readonly string[]).includes(kind) || (sourceAt >= 0 && argv[sourceAt + 1] === undefined)) {
    console.error(USAGE);
    return 2;
  }
  const converted = convertSession(kind as SessionKind, readFileSync(input, 'utf8'));
  const id = output.replace(/^.*\//, '').replace(/\.jsonl(\.gz)?$/, '');
  const body = piSessionJsonl(id, kind as SessionKind, converted, sourceAt >= 0 ? (argv[sourceAt + 1] as string) : input);
  writeFileSync(output, output.endsWith('.gz') ? gzipSync(body, { level: 9 }) : body);
  const calls = converted.entries.filter((line) => line.message.role === 'assistant').length;
  const skipped = converted.skippedLines > 0 ? `, ${converted.skippedLines} input lines that are not JSON left out` : '';
  console.log(`${output}: ${converted.entries.length} messages, ${calls} model calls${skipped}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
