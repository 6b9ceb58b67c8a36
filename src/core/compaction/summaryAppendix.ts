// Compaction, stage 2a: what code appends to a summary (the file ledger, the user's requests, pins, drops), never the model.
import { omittedFrom, type BoundedList } from '../session/boundedList';
import type { FileLedger, MessageEntry } from '../session/entries';
import { entryBlock } from './summaryTranscript';

// ─── The file ledger: taken from tool-call arguments, never from the model's summary ───

const READ_TOOLS = new Set(['read_file']);
const WRITE_TOOLS = new Set(['write_file', 'edit_file']);
const PATH_KEYS = ['path', 'file_path', 'filePath', 'file'] as const;

function pathArgument(argumentsJson: string): string | null {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const record = parsed as Record<string, unknown>;
    for (const key of PATH_KEYS) {
      const value = record[key];
      if (typeof value === 'string' && value.trim().length > 0) return value.trim();
    }
  } catch {
    // Truncated or invalid arguments (an aborted call) name no file.
  }
  return null;
}

/**
 * Adds the files the given entries' read_file/write_file/edit_file calls touched to the previous
 * ledger. A file both read and modified is listed as modified only. Lists are sorted for stable output.
 */
export function extendFileLedger(previous: FileLedger | null | undefined, entries: readonly MessageEntry[]): FileLedger {
  const read = new Set(previous?.read ?? []);
  const modified = new Set(previous?.modified ?? []);
  for (const entry of entries) {
    if (entry.type !== 'assistant') continue;
    for (const call of entry.toolCalls) {
      const file = pathArgument(call.arguments);
      if (file === null) continue;
      if (WRITE_TOOLS.has(call.name)) modified.add(file);
      else if (READ_TOOLS.has(call.name)) read.add(file);
    }
  }
  for (const file of modified) read.delete(file);
  return { read: [...read].sort(), modified: [...modified].sort() };
}

// ─── The appendix ───

/**
 * Where the deterministic appendix begins; a previous summary is cut here before it is re-summarized.
 * Distinct from anything a model writes, so a summary with its own "## Files" section is never cut there.
 */
export const APPENDIX_HEADING = '## Files (recorded by the agent)';

/** The appendix may take this share of the summary's token budget; it is capped, counted and validated. */
export const APPENDIX_SHARE = 0.5;

export interface AppendixInput {
  files: FileLedger;
  /** The user's request the summarized part ends in; null when there was none. */
  lastUserRequest: string | null;
  /** The cut split that request's turn, so the context builder sends it verbatim after the summary: named, not repeated. */
  requestCarried?: boolean;
  /** Every request the user made before the last one, oldest first, verbatim (empty ones are skipped). */
  earlierRequests?: readonly string[];
  /** One-line references to pinned messages (their text is re-sent verbatim by the context builder). */
  pinned: readonly string[];
  /** Parts the person dropped from the context on purpose, one line each (named, never repeated); a bounded list counts the earlier ones it left out. */
  dropped?: readonly string[] | BoundedList<string>;
  /** Most characters the whole appendix may take; every list line and separator counts. Unbounded when absent. */
  maxChars?: number;
}

/** The appendix section naming what the person dropped from the context on purpose. */
export const DROPPED_HEADING = '## Dropped on purpose';

/** Shares of the appendix budget: files, the last request, earlier requests, pins; dropped parts take theirs from earlier requests. */
const APPENDIX_SHARES = { files: 0.3, lastRequest: 0.25, earlierRequests: 0.3, pinned: 0.15 } as const;
const DROPPED_SHARE = 0.1;
/** An earlier request is kept verbatim up to this length (a pasted log beyond it is cut with a mark). */
const REQUEST_VERBATIM_CHARS = 2000;

function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = Math.max(0, limit - 40);
  return `${text.slice(0, keep)}… [${text.length - keep} more characters]`;
}

/**
 * Lines that fit `budget` characters (each with its newline), in order; what did not fit, and the `omitted` items a
 * bounded list already left out, is counted on a last line.
 */
function cappedLines(items: readonly string[], budget: number, format: (item: string, index: number) => string, newestFirst: boolean, what: string, omitted = 0): string {
  const chosen: string[] = [];
  let size = 0;
  const order = newestFirst ? [...items.keys()].reverse() : [...items.keys()];
  let left = 0;
  for (const [position, index] of order.entries()) {
    const line = format(items[index] ?? '', index);
    if (size + line.length + 1 > budget) {
      left = order.length - position;
      break;
    }
    chosen.push(line);
    size += line.length + 1;
  }
  if (newestFirst) chosen.reverse();
  left += omitted;
  if (left > 0) {
    const note = `- (${left} ${newestFirst ? 'earlier ' : ''}${what}${left === 1 ? '' : 's'} not listed)`;
    if (newestFirst) chosen.unshift(note);
    else chosen.push(note);
  }
  return chosen.length > 0 ? chosen.join('\n') : '- (none)';
}

/**
 * Appended verbatim by code, never by the model, so file lists and the user's words cannot be lost. Every
 * section is capped by its share of `maxChars` (items that do not fit are counted, newest requests kept).
 */
export function summaryAppendix(input: AppendixInput): string {
  const max = input.maxChars ?? Number.POSITIVE_INFINITY;
  const dropped = input.dropped ?? [];
  const taken = (part: keyof typeof APPENDIX_SHARES): number => (part === 'earlierRequests' && dropped.length > 0 ? DROPPED_SHARE : 0);
  const share = (part: keyof typeof APPENDIX_SHARES): number => Math.max(200, Math.floor(max * (APPENDIX_SHARES[part] - taken(part))));
  const fileBudget = share('files');
  const bullet = (item: string): string => `- ${cut(item.replace(/\s+/g, ' '), 300)}`;
  const read = cappedLines(input.files.read, Math.floor(fileBudget / 2), bullet, false, 'file');
  const modified = cappedLines(input.files.modified, Math.ceil(fileBudget / 2), bullet, false, 'file');
  const last = input.lastUserRequest?.trim()
    ? input.requestCarried
      ? '(sent verbatim right after this summary: the summarized part ends inside its turn)'
      : cut(input.lastUserRequest.trim(), share('lastRequest'))
    : '(none)';
  const sections = [`${APPENDIX_HEADING}\n### Read\n${read}\n### Modified\n${modified}`, `## Last user request\n${last}`];
  const earlier = (input.earlierRequests ?? []).map((request) => request.trim()).filter((request) => request !== '');
  if (earlier.length > 0) {
    // Numbered in the order made, oldest first; multi-line requests stay intact, long ones are cut.
    const numbered = (request: string, index: number): string => `${index + 1}. ${cut(request, REQUEST_VERBATIM_CHARS)}`;
    sections.push(`## Earlier user requests\n${cappedLines(earlier, share('earlierRequests'), numbered, true, 'request')}`);
  }
  if (input.pinned.length > 0) sections.push(pinnedSection(input.pinned, share('pinned')));
  if (dropped.length > 0) {
    const budget = Math.max(200, Math.floor(max * DROPPED_SHARE));
    const earlier = omittedFrom(dropped);
    sections.push(`${DROPPED_HEADING}\nLeft out of the context by the user, not by mistake; not to be redone or relied on:\n${cappedLines(dropped, budget, bullet, true, 'dropped part', earlier)}`);
  }
  return sections.join('\n\n');
}

// ─── Pinned messages: named in the appendix, re-sent verbatim by the context builder ───

export const PINNED_HEADING = '## Pinned messages';

/** How the appendix names a pinned message the context sends verbatim after the summary: its first line. */
export function pinnedReference(entry: MessageEntry): string {
  const lines = entryBlock(entry).split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const [tag = '', body] = lines;
  const text = body !== undefined && /^\[[^\]]*\]$/.test(tag) ? `${tag} ${body}` : tag;
  return `kept verbatim after this summary: ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`;
}

function pinnedSection(references: readonly string[], budget: number): string {
  const bullet = (item: string): string => `- ${cut(item.replace(/\s+/g, ' '), 300)}`;
  return `${PINNED_HEADING}\n${cappedLines(references, budget, bullet, false, 'pinned message')}`;
}

/**
 * The summary with its appendix naming exactly `references` under PINNED_HEADING (the section written anew, added or
 * taken out): pins made or removed while the summary waited for review change what is re-sent after it. `budget` caps
 * the section in characters, like the appendix's share for pins.
 */
export function withPinnedSection(summary: string, references: readonly string[], budget: number): string {
  const appendix = summary.lastIndexOf(`${APPENDIX_HEADING}\n`);
  if (appendix < 0) return summary;
  const head = summary.slice(0, appendix);
  const sections = summary.slice(appendix).split(/\n\n(?=## )/);
  const kept = sections.filter((section) => !section.startsWith(`${PINNED_HEADING}\n`));
  if (references.length > 0) {
    const before = kept.findIndex((section) => section.startsWith(`${DROPPED_HEADING}\n`));
    kept.splice(before < 0 ? kept.length : before, 0, pinnedSection(references, Math.max(200, budget)));
  }
  return `${head}${kept.join('\n\n')}`;
}

/** The appendix's character budget for its pins when its summary may take `summaryTokens` (as summaryAppendix shares it). */
export function pinnedBudget(summaryTokens: number): number {
  return Math.max(200, Math.floor(summaryTokens * APPENDIX_SHARE * 4 * APPENDIX_SHARES.pinned));
}

/** The model-written part of a summary (the appendix is rebuilt at every compaction). */
export function stripAppendix(summary: string): string {
  const at = summary.lastIndexOf(`\n${APPENDIX_HEADING}\n`);
  const start = summary.startsWith(`${APPENDIX_HEADING}\n`) && at < 0 ? 0 : at;
  return (start >= 0 ? summary.slice(0, start) : summary).trim();
}
