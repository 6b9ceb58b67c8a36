// Imports a pi-coding-agent JSONL session into our format: its tree (or linear chain) of entries, large outputs as blobs.
import * as nodePath from 'node:path';
import { SCHEMA_VERSION, type BlobRef, type SessionEntry, type SessionHeader } from '../session/entries';
import { validateEntry } from '../session/entryValidation';
import { formatLine, withoutBom } from '../session/logParser';
import { newEntryId } from '../session/newEntry';
import { BlobStore } from '../storage/blobStore';
import { nodeFileIo, type FileIo } from '../storage/fileIo';
import { convertPiLine, type PiConvertState } from './piEntries';
import { isObject } from './piMessages';
import { PiTreeLinks } from './piTree';

export interface PiImportOptions {
  /** Source file path, recorded in the header. */
  sourcePath?: string;
  /** Tool outputs longer than this are capped inline and kept whole in a blob (default 24000, the tools.outputMaxChars default). */
  maxInlineChars?: number;
  newId?: () => string;
}

export interface PiImportResult {
  header: SessionHeader;
  entries: SessionEntry[];
  /** Full texts of capped tool outputs, to be stored in the blob store. */
  blobs: Array<{ ref: BlobRef; text: string }>;
  warnings: string[];
}

type Json = Record<string, unknown>;

export class PiImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PiImportError';
  }
}

/** pi's lines as JSON objects (undefined for a damaged line, which keeps its index); a byte-order mark is ignored. */
function parseLines(text: string, warnings: string[]): Array<Json | undefined> {
  const lines = withoutBom(text).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, index) => {
    try {
      const value: unknown = JSON.parse(withoutBom(line));
      if (isObject(value)) return value;
    } catch {
      // Reported below; the line keeps its index so line numbers (and version 1 compactions) still line up.
    }
    warnings.push(`line ${index + 1}: not a JSON object, skipped`);
    return undefined;
  });
}

function headerOf(first: Json, options: PiImportOptions, id: string): SessionHeader {
  return {
    type: 'session',
    version: SCHEMA_VERSION,
    id,
    timestamp: typeof first.timestamp === 'string' ? first.timestamp : new Date(0).toISOString(),
    importedFrom: { format: 'pi', path: options.sourcePath ?? '', ...(typeof first.id === 'string' ? { sessionId: first.id } : {}) },
    ...(typeof first.cwd === 'string' ? { cwd: first.cwd } : {}),
  };
}

/** When pi's leaf (its last line) is not the last entry we wrote, a leaf move makes it current, as pi would resume it. */
function leafMove(entries: readonly SessionEntry[], leaf: string | null, id: string, timestamp: string): SessionEntry | undefined {
  const last = entries[entries.length - 1];
  if (!last || leaf === null || leaf === last.id) return undefined;
  return { type: 'leaf', id, parentId: last.id, timestamp, targetId: leaf, reason: 'switch' };
}

function countWarnings(state: PiConvertState): void {
  if (state.counts.images > 0) state.warnings.push(`${state.counts.images} image part(s) were not imported`);
  if (state.counts.unknown > 0) state.warnings.push(`${state.counts.unknown} content part(s) of unknown type were not imported`);
  if (state.extensionState > 0) state.warnings.push(`${state.extensionState} extension state entr${state.extensionState === 1 ? 'y was' : 'ies were'} not imported (pi never sends them to the model)`);
}

/**
 * Converts a whole pi session file's text; never throws for damaged lines (they become warnings). Tree-format
 * sessions (version 2 and 3: id/parentId) are imported as trees, every branch kept, and the current leaf is
 * the one pi would resume (its last entry); older linear files become one chain.
 */
export function importPiSession(text: string, options: PiImportOptions = {}): PiImportResult {
  const warnings: string[] = [];
  const lines = parseLines(text, warnings);
  const first = lines[0];
  if (!first || first.type !== 'session') throw new PiImportError('not a pi session file: the first line is not a {"type":"session"} header');
  const newId = options.newId ?? newEntryId;
  const header = headerOf(first, options, newId());
  const state: PiConvertState = { counts: { images: 0, unknown: 0 }, maxInlineChars: options.maxInlineChars ?? 24_000, blobs: [], warnings, newId, links: new PiTreeLinks(), extensionState: 0 };
  const entries: SessionEntry[] = [];
  lines.forEach((line, index) => {
    if (index === 0 || !line) return;
    const parent = state.links.parentFor(line, index, warnings);
    const timestamp = typeof line.timestamp === 'string' ? line.timestamp : header.timestamp;
    const made: string[] = [];
    for (const fields of convertPiLine(line, index, parent, state)) {
      const checked = validateEntry({ ...fields, parentId: made[made.length - 1] ?? parent, timestamp });
      if ('error' in checked) {
        warnings.push(`line ${index + 1}: ${checked.error}, skipped`);
        break;
      }
      entries.push(checked.entry);
      made.push(checked.entry.id);
    }
    state.links.record(line, index, parent, made);
  });
  const move = leafMove(entries, state.links.leaf, newId(), entries[entries.length - 1]?.timestamp ?? header.timestamp);
  if (move) entries.push(move);
  countWarnings(state);
  return { header: state.title === undefined ? header : { ...header, title: state.title }, entries, blobs: state.blobs, warnings };
}

/** Imports `inFile` to a new session file `outFile`, blobs in `blobs/` beside it; refuses to overwrite. */
export async function importPiFile(inFile: string, outFile: string, io: FileIo = nodeFileIo): Promise<PiImportResult> {
  const text = (await io.readFile(inFile)).toString('utf8');
  const result = importPiSession(text, { sourcePath: nodePath.resolve(inFile) });
  if (await io.exists(outFile)) throw new PiImportError(`output file already exists: ${outFile}`);
  const blobs = new BlobStore(nodePath.join(nodePath.dirname(outFile), 'blobs'), io);
  // Blobs first: a log that exists always has its blobs.
  for (const blob of result.blobs) await blobs.put(blob.text);
  await io.mkdirp(nodePath.dirname(outFile));
  await io.writeFileAtomic(outFile, [result.header, ...result.entries].map(formatLine).join(''));
  return result;
}
