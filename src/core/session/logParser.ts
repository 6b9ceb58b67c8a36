// Parses a session file's bytes: header + entries, separating the committed prefix from torn and corrupt lines.
import { SCHEMA_VERSION, type SessionEntry, type SessionHeader } from './entries';
import { checkEntry, validateHeader } from './entryValidation';
import { LineDecoder } from './lineDecoder';
import { checkVersion, migrateLine, MIGRATIONS, type JsonRecord, type Migration } from './migrations';
import { loopingEntries } from './parentCycles';
import { clipText } from './warningSummary';

/** A line that could not be loaded: kept byte for byte so it can go to quarantine. */
export interface BadLine {
  /** 1-based line number in the file. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  raw: Buffer;
  reason: string;
}

export interface ParsedLog {
  /** The header migrated to the current schema. */
  header: SessionHeader;
  /** The schema version the file was written with. */
  fileVersion: number;
  entries: SessionEntry[];
  /** Where each entry's id is in `entries` (ids are unique): the session tree adopts it instead of hashing every id again. */
  positions: Map<string, number>;
  /** The 1-based file line entries[index] was read from. */
  entryLine(index: number): number;
  /** Bytes up to the end of the last complete line (what survives a crash). */
  committedBytes: number;
  /** The header and every loadable line, raw: the file as it should be after quarantining bad lines. */
  cleanBytes: Buffer;
  /** An incomplete last line (no trailing newline): a write that never finished. */
  torn?: BadLine;
  /** Complete lines that are not valid entries (bad JSON, wrong shape, duplicate id, a parent loop), in file order. */
  corrupt: BadLine[];
  /** warnings[i] describes corrupt[i]; a torn tail's warning comes last. */
  warnings: string[];
}

/** The file cannot be read as a session at all (no header, or a schema version we cannot migrate). */
export class SessionReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionReadError';
  }
}

const NEWLINE = 0x0a;

/** An opaque entry is written back as the line it was read from. */
export function formatLine(value: SessionHeader | SessionEntry): string {
  return `${JSON.stringify(value.type === 'opaque' ? value.line : value)}\n`;
}

/** Without a leading byte-order mark (U+FEFF), which some editors put at the start of a file. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function parseText(text: string): { value: unknown } | { error: string } {
  const value = parseLine(text);
  return value === NOT_JSON ? { error: 'not valid JSON' } : { value };
}

/** What parseLine answers for a line that is not JSON (a symbol: no JSON text parses to one). */
const NOT_JSON: unique symbol = Symbol('not JSON');

function parseLine(text: string): unknown {
  try {
    return JSON.parse(withoutBom(text)) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function corruptWarning(file: string, bad: BadLine): string {
  return `${file}: line ${bad.line} is corrupt (${clipText(bad.reason)}) and was set aside`;
}

/** data[0, end) without the given (ascending, disjoint) byte ranges. */
function withoutRanges(data: Buffer, end: number, ranges: ReadonlyArray<[number, number]>): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const [start, stop] of ranges) {
    parts.push(data.subarray(from, start));
    from = stop;
  }
  parts.push(data.subarray(from, end));
  return Buffer.concat(parts);
}

function readHeader(data: Buffer, file: string, migrations: Readonly<Record<number, Migration>>): { header: SessionHeader; version: number; end: number } {
  const end = data.indexOf(NEWLINE);
  if (end < 0) throw new SessionReadError(`${file} has no complete session header line`);
  const parsed = parseText(data.toString('utf8', 0, end));
  if ('error' in parsed) throw new SessionReadError(`${file} is not a session log: the first line is not JSON`);
  const checked = validateHeader(parsed.value);
  if ('error' in checked) throw new SessionReadError(`${file} is not a session log: ${checked.error}`);
  const version = checked.header.version;
  checkVersion(version, migrations);
  const migrated = migrateLine(checked.header as unknown as JsonRecord, version, migrations);
  return { header: { ...(migrated as unknown as SessionHeader), version: SCHEMA_VERSION }, version, end: end + 1 };
}

/** The lines of the first `count` entries when every line so far held one (the header is line 1). */
function entryLinesSoFar(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index + 2);
}

/** Where each line of the file starts (lineStarts[n - 1] is line n's first byte): found only to set loops aside. */
function lineStarts(data: Buffer): number[] {
  const starts = [0];
  for (let newline = data.indexOf(NEWLINE); newline >= 0 && newline + 1 < data.length; newline = data.indexOf(NEWLINE, newline + 1)) starts.push(newline + 1);
  return starts;
}

/** Never throws for damaged entry lines; throws SessionReadError only when there is no usable header. */
export function parseLog(data: Buffer, file = 'session', migrations: Readonly<Record<number, Migration>> = MIGRATIONS): ParsedLog {
  const { header, version, end: headerEnd } = readHeader(data, file, migrations);
  let entries: SessionEntry[] = [];
  // Each entry's line, kept from the first line skipped on: until then entries[i] is on line i + 2 (no array).
  let entryLines: number[] | undefined;
  // Where each entry's line starts and ends, kept only to set aside the entries that close a parent loop.
  const corrupt: BadLine[] = [];
  // Every id read so far and where its entry is: finds duplicates, then indexes the tree.
  let positions = new Map<string, number>();
  // Line ranges left out of the clean bytes (blank or corrupt); the clean copy is only built when there are any.
  const skipped: Array<[number, number]> = [];
  let offset = headerEnd;
  let lineNumber = 1;
  let torn: BadLine | undefined;
  let forwardParents = false;
  const decoder = new LineDecoder(data, headerEnd);
  while (offset < data.length) {
    lineNumber++;
    const newline = data.indexOf(NEWLINE, offset);
    if (newline < 0) {
      torn = { line: lineNumber, offset, raw: data.subarray(offset), reason: 'incomplete last line (write interrupted)' };
      break;
    }
    const lineStart = offset;
    offset = newline + 1;
    // Decoded once: the same text serves the blank check and JSON.parse.
    const text = decoder.text(lineStart, newline);
    if (text.length === 0 || (text.charCodeAt(0) <= 0x20 && text.trim() === '')) {
      entryLines ??= entryLinesSoFar(entries.length);
      skipped.push([lineStart, offset]);
      continue;
    }
    // No wrapper object per line: the value, or NOT_JSON; the entry, or the reason it is not one.
    const value = parseLine(text);
    const checked = value === NOT_JSON ? 'not valid JSON' : checkEntry(version === SCHEMA_VERSION ? value : migrateLine(value as JsonRecord, version, migrations));
    const reason = typeof checked === 'string' ? checked : positions.has(checked.id) ? `duplicate id ${clipText(checked.id, 80)}` : undefined;
    if (reason !== undefined || typeof checked === 'string') {
      entryLines ??= entryLinesSoFar(entries.length);
      corrupt.push({ line: lineNumber, offset: lineStart, raw: data.subarray(lineStart, offset), reason: reason ?? 'invalid entry' });
      skipped.push([lineStart, offset]);
      continue;
    }
    // Only a parent not seen yet (itself, a later line, a missing id) can close a loop; checked once at the end. Most
    // entries name the entry on the line before, which needs no lookup in the id map.
    const parentId = checked.parentId;
    if (parentId !== null && parentId !== entries[entries.length - 1]?.id && !positions.has(parentId)) forwardParents = true;
    positions.set(checked.id, entries.length);
    entries.push(checked);
    entryLines?.push(lineNumber);
  }
  const looping = forwardParents ? loopingEntries(entries) : new Map<number, string>();
  if (looping.size > 0) {
    const lines = entryLines ?? entryLinesSoFar(entries.length);
    const starts = lineStarts(data);
    for (const [index, reason] of looping) {
      const line = lines[index] ?? 0;
      const start = starts[line - 1] ?? 0;
      const stop = starts[line] ?? data.length;
      corrupt.push({ line, offset: start, raw: data.subarray(start, stop), reason });
      skipped.push([start, stop]);
    }
    corrupt.sort((a, b) => a.offset - b.offset);
    skipped.sort((a, b) => a[0] - b[0]);
    entryLines = lines.filter((_, index) => !looping.has(index));
    entries = entries.filter((_, index) => !looping.has(index));
    positions = new Map(entries.map((entry, index) => [entry.id, index]));
  }
  const warnings = corrupt.map((bad) => corruptWarning(file, bad));
  if (torn) warnings.push(`${file}: dropped an incomplete last line (${torn.raw.length} bytes) left by an interrupted write`);
  const committedBytes = torn ? torn.offset : data.length;
  const cleanBytes = skipped.length === 0 ? data.subarray(0, committedBytes) : withoutRanges(data, committedBytes, skipped);
  const kept = entryLines;
  const entryLine = kept ? (index: number): number => kept[index] ?? 0 : (index: number): number => index + 2;
  return { header, fileVersion: version, entries, positions, entryLine, committedBytes, cleanBytes, torn, corrupt, warnings };
}
