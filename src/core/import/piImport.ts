// Imports a pi-coding-agent JSONL session into our format: a linear chain of entries, large outputs as blobs.
import * as nodePath from 'node:path';
import { SCHEMA_VERSION, type BlobRef, type SessionEntry, type SessionHeader } from '../session/entries';
import { validateEntry } from '../session/entryValidation';
import { formatLine } from '../session/logParser';
import { newEntryId, type NewEntry } from '../session/newEntry';
import { BlobStore, blobRefOf } from '../storage/blobStore';
import { capToolOutput } from '../tools/outputCap';
import { nodeFileIo, type FileIo } from '../storage/fileIo';
import { isObject, joinText, piAssistant, piBashExecution, type PartCounts } from './piMessages';

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

function parseLines(text: string, warnings: string[]): Array<Json | undefined> {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, index) => {
    try {
      const value: unknown = JSON.parse(line);
      if (isObject(value)) return value;
    } catch {
      // Reported below; the line keeps its index so firstKeptEntryIndex still lines up.
    }
    warnings.push(`line ${index + 1}: not a JSON object, skipped`);
    return undefined;
  });
}

/** The fields of our entry for one pi line, or undefined for lines that carry nothing we keep. */
function convertLine(line: Json, id: string, state: { counts: PartCounts; maxInlineChars: number; blobs: PiImportResult['blobs']; lineToId: Map<number, string>; warnings: string[] }): NewEntry | undefined {
  if (line.type === 'message' && isObject(line.message)) {
    const message = line.message;
    if (message.role === 'user') return { type: 'user', text: joinText(message.content, state.counts) };
    if (message.role === 'assistant') return { type: 'assistant', ...piAssistant(message, state.counts) };
    if (message.role === 'bashExecution') return { type: 'user', text: piBashExecution(message) };
    if (message.role === 'toolResult') {
      const full = joinText(message.content, state.counts);
      // The agent loop's cap, by characters only: pi had no line limit, and a line cap would cut far more of its outputs.
      const capped = capToolOutput(full, { maxChars: state.maxInlineChars, maxLines: Number.MAX_SAFE_INTEGER, entryId: id });
      const blob = capped.full === undefined ? undefined : blobRefOf(capped.full);
      if (blob) state.blobs.push({ ref: blob, text: full });
      return {
        type: 'toolResult',
        toolCallId: typeof message.toolCallId === 'string' ? message.toolCallId : '',
        toolName: typeof message.toolName === 'string' ? message.toolName : 'unknown',
        isError: message.isError === true,
        content: capped.content,
        ...(blob ? { blob } : {}),
      };
    }
    state.warnings.push(`message role ${JSON.stringify(message.role)} is not supported, skipped`);
    return undefined;
  }
  if (line.type === 'compaction') return convertCompaction(line, state.lineToId, state.warnings);
  if (line.type === 'model_change' && typeof line.modelId === 'string') {
    return { type: 'modelChange', model: line.modelId, ...(typeof line.provider === 'string' ? { provider: line.provider } : {}) };
  }
  if (line.type === 'thinking_level_change' && typeof line.thinkingLevel === 'string') {
    return { type: 'settingsChange', changes: { thinkingLevel: line.thinkingLevel } };
  }
  state.warnings.push(`entry type ${JSON.stringify(line.type)} is not supported, skipped`);
  return undefined;
}

function convertCompaction(line: Json, lineToId: Map<number, string>, warnings: string[]): NewEntry {
  const index = typeof line.firstKeptEntryIndex === 'number' ? line.firstKeptEntryIndex : -1;
  // The kept line may be one we skipped (e.g. an unsupported kind): keep from the next imported entry instead.
  let firstKeptEntryId: string | null = null;
  for (const [lineIndex, id] of [...lineToId.entries()].sort((a, b) => a[0] - b[0])) {
    if (index >= 0 && lineIndex >= index) {
      firstKeptEntryId = id;
      break;
    }
  }
  if (index >= 0 && firstKeptEntryId === null) warnings.push(`compaction keeps line ${index + 1}, which was not imported; nothing before it is kept`);
  return {
    type: 'compaction',
    summary: typeof line.summary === 'string' ? line.summary : '',
    firstKeptEntryId,
    tokensBefore: typeof line.tokensBefore === 'number' ? line.tokensBefore : 0,
    tokensAfter: 0,
    files: { read: [], modified: [] },
    edited: false,
    auto: false,
  };
}

/** Converts a whole pi session file's text; never throws for damaged lines (they become warnings). */
export function importPiSession(text: string, options: PiImportOptions = {}): PiImportResult {
  const warnings: string[] = [];
  const lines = parseLines(text, warnings);
  const first = lines[0];
  if (!first || first.type !== 'session') throw new PiImportError('not a pi session file: the first line is not a {"type":"session"} header');
  const newId = options.newId ?? newEntryId;
  const header: SessionHeader = {
    type: 'session',
    version: SCHEMA_VERSION,
    id: newId(),
    timestamp: typeof first.timestamp === 'string' ? first.timestamp : new Date(0).toISOString(),
    importedFrom: { format: 'pi', path: options.sourcePath ?? '', ...(typeof first.id === 'string' ? { sessionId: first.id } : {}) },
    ...(typeof first.cwd === 'string' ? { cwd: first.cwd } : {}),
  };
  const state = { counts: { images: 0, unknown: 0 }, maxInlineChars: options.maxInlineChars ?? 24_000, blobs: [] as PiImportResult['blobs'], lineToId: new Map<number, string>(), warnings };
  const entries: SessionEntry[] = [];
  lines.forEach((line, index) => {
    if (index === 0 || !line) return;
    const id = newId();
    const fields = convertLine(line, id, state);
    if (!fields) return;
    const timestamp = typeof line.timestamp === 'string' ? line.timestamp : header.timestamp;
    const checked = validateEntry({ ...fields, id, parentId: entries[entries.length - 1]?.id ?? null, timestamp });
    if ('error' in checked) return warnings.push(`line ${index + 1}: ${checked.error}, skipped`);
    entries.push(checked.entry);
    state.lineToId.set(index, id);
    return undefined;
  });
  if (state.counts.images > 0) warnings.push(`${state.counts.images} image part(s) were not imported`);
  if (state.counts.unknown > 0) warnings.push(`${state.counts.unknown} content part(s) of unknown type were not imported`);
  return { header, entries, blobs: state.blobs, warnings };
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
