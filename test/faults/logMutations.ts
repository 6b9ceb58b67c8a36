// Seeded damage to a session file's lines: flipped bytes, cut lines, bad UTF-8, garbage, duplicates, joins, NULs, huge lines.
import { formatLine } from '../../src/core/session/logParser';
import type { SessionEntry } from '../../src/core/session/entries';
import type { SeededRandom } from './seededRandom';

/** A line of the file being damaged (what survives intact is worked out from the final bytes, not tracked here). */
export interface MutableLine {
  bytes: Buffer;
  /** An inserted line that is a valid, unique entry and must load while it stays intact. */
  validEntry?: SessionEntry;
}

export type MutationKind =
  'flip' | 'truncate' | 'tornTail' | 'badUtf8' | 'garbage' | 'duplicate' | 'join' | 'nul' | 'huge';

export const MUTATION_KINDS: readonly MutationKind[] = [
  'flip',
  'truncate',
  'tornTail',
  'badUtf8',
  'garbage',
  'duplicate',
  'join',
  'nul',
  'huge',
];

const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0xc3],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0x80, 0x80, 0x80],
];

function randomBytesOf(random: SeededRandom, length: number, printable: boolean): Buffer {
  // A random 4 KB block repeated: as hostile to the parser as fully random bytes, and fast to make for multi-MB lines.
  const block = Buffer.alloc(Math.min(length, 4096));
  for (let index = 0; index < block.length; index++) {
    const byte = printable ? random.int(0x20, 0x7e) : random.int(0, 255);
    block[index] = byte === 0x0a ? 0x20 : byte;
  }
  const out = Buffer.alloc(length);
  for (let offset = 0; offset < length; offset += block.length) block.copy(out, offset);
  return out;
}

function touch(line: MutableLine, bytes: Buffer): void {
  line.bytes = bytes;
}

function plain(bytes: Buffer): MutableLine {
  return { bytes };
}

/** A body position (never the trailing newline) of line `line`. */
function bodyIndex(random: SeededRandom, line: MutableLine): number {
  return random.int(0, Math.max(0, line.bytes.length - 2));
}

function insertAt(lines: MutableLine[], random: SeededRandom, line: MutableLine): void {
  lines.splice(random.int(1, lines.length), 0, line);
}

function hugeValidEntry(random: SeededRandom, seed: number, lines: MutableLine[]): MutableLine {
  const text = randomBytesOf(random, random.int(1, 3) * 1024 * 1024, true).toString('latin1');
  const entry: SessionEntry = {
    type: 'toolResult',
    id: `huge-${seed}-${lines.length}`,
    parentId: null,
    timestamp: new Date(Date.UTC(2025, 1, 1)).toISOString(),
    toolCallId: `call-huge-${seed}`,
    toolName: 'run_command',
    isError: false,
    content: text,
  };
  return { bytes: Buffer.from(formatLine(entry), 'utf8'), validEntry: entry };
}

type Mutation = (lines: MutableLine[], target: MutableLine, random: SeededRandom, seed: number) => void;

const MUTATIONS: Record<MutationKind, Mutation> = {
  flip(_lines, target, random) {
    const bytes = Buffer.from(target.bytes);
    for (let count = random.int(1, 4); count > 0; count--) {
      const at = bodyIndex(random, target);
      bytes[at] = (bytes[at] ?? 0) ^ random.int(1, 255);
    }
    touch(target, bytes);
  },
  truncate(_lines, target, random) {
    touch(target, Buffer.concat([target.bytes.subarray(0, bodyIndex(random, target)), Buffer.from('\n')]));
  },
  tornTail(lines, _target, random) {
    const last = lines[lines.length - 1];
    if (last && lines.length > 1) touch(last, last.bytes.subarray(0, random.int(1, last.bytes.length - 1)));
  },
  badUtf8(_lines, target, random) {
    const at = bodyIndex(random, target);
    touch(
      target,
      Buffer.concat([target.bytes.subarray(0, at), Buffer.from(random.pick(INVALID_UTF8)), target.bytes.subarray(at)]),
    );
  },
  garbage(lines, _target, random) {
    const body = randomBytesOf(random, random.int(1, 400), random.chance(0.5));
    insertAt(lines, random, plain(Buffer.concat([body, Buffer.from('\n')])));
  },
  duplicate(lines, target, random) {
    insertAt(lines, random, plain(Buffer.from(target.bytes)));
  },
  join(_lines, target) {
    if (target.bytes[target.bytes.length - 1] === 0x0a)
      touch(target, target.bytes.subarray(0, target.bytes.length - 1));
  },
  nul(lines, target, random) {
    const run = Buffer.alloc(random.int(1, 4096));
    const mode = random.int(0, 2);
    if (mode === 0) {
      const at = bodyIndex(random, target);
      touch(target, Buffer.concat([target.bytes.subarray(0, at), run, target.bytes.subarray(at)]));
    } else if (mode === 1) {
      insertAt(lines, random, plain(Buffer.concat([run, Buffer.from('\n')])));
    } else {
      // What some file systems leave after a crash: the size grew but the data never arrived.
      lines.push(plain(run));
    }
  },
  huge(lines, _target, random, seed) {
    if (random.chance(0.5)) insertAt(lines, random, hugeValidEntry(random, seed, lines));
    else
      insertAt(
        lines,
        random,
        plain(Buffer.concat([randomBytesOf(random, random.int(1, 3) * 1024 * 1024, false), Buffer.from('\n')])),
      );
  },
};

/** Applies `kind` to a random entry line (never the header, index 0). */
export function mutate(lines: MutableLine[], kind: MutationKind, random: SeededRandom, seed: number): void {
  const target = lines[random.int(1, lines.length - 1)];
  if (target === undefined || lines.length < 2) return;
  MUTATIONS[kind](lines, target, random, seed);
}
