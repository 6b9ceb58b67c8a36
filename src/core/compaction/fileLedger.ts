// The cumulative list of files read and modified, taken from tool-call arguments (never from the model's summary).
import type { FileLedger, MessageEntry } from '../session/entries';

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
