// Converts a Crush session (Charm's coding agent; OpenCode in Go before it, same store) to pi-format session entries: the rows of its SQLite `messages` table as `sqlite3 -json` prints them.
import { isObject, settleTimes, str, text, type ConvertedSession, type Json, type PiPart, type TimedMessage } from './piSession';

/** One row of Crush's `messages` table; `parts` is the JSON text Crush stores (typed parts: text, reasoning, tool_call, tool_result, finish, …). */
interface CrushRow {
  role: string;
  parts: Json[];
  model: string;
  /** Unix seconds in the releases seen (the schema's comment says milliseconds), ISO text in early OpenCode (Go) releases; all are read. */
  createdAt: number | undefined;
  /** The session's summary (Crush's own compaction): `is_summary_message` in newer releases, `id = sessions.summary_message_id` in the export query. */
  isSummary: boolean;
}

function toMs(value: unknown): number | undefined {
  if (typeof value === 'string' && value.trim() !== '' && !Number.isFinite(Number(value))) return Number.isFinite(Date.parse(value)) ? Date.parse(value) : undefined;
  const seconds = typeof value === 'string' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? (seconds < 1e12 ? seconds * 1000 : seconds) : undefined;
}

function parseParts(value: unknown): Json[] | undefined {
  if (Array.isArray(value)) return value.filter(isObject);
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter(isObject) : undefined;
  } catch {
    return undefined;
  }
}

/** The rows of the export, or undefined when the input is not a JSON array (one row unreadable: left out and counted). */
function crushRows(input: string): { rows: CrushRow[]; skipped: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const rows: CrushRow[] = [];
  let skipped = 0;
  for (const row of parsed) {
    const parts = isObject(row) ? parseParts(row.parts) : undefined;
    if (!isObject(row) || !parts || typeof row.role !== 'string') {
      skipped++;
      continue;
    }
    const isSummary = row.is_summary === 1 || row.is_summary === true || row.is_summary_message === 1 || row.is_summary_message === true;
    rows.push({ role: row.role, parts, model: str(row.model), createdAt: toMs(row.created_at), isSummary });
  }
  return { rows, skipped };
}

const data = (part: Json): Json => (isObject(part.data) ? part.data : {});

function toolInput(value: unknown): Json {
  if (isObject(value)) return value;
  try {
    const parsed: unknown = JSON.parse(str(value));
    return isObject(parsed) ? parsed : { input: str(value) };
  } catch {
    return { input: str(value) };
  }
}

/** Crush's tools as pi's where they are the same (`file_path` → `path`); others keep their name and arguments. */
function crushTool(name: string, input: Json): { name: string; arguments: Json } {
  const path = input.file_path;
  const range = { ...(input.offset !== undefined ? { offset: input.offset } : {}), ...(input.limit !== undefined ? { limit: input.limit } : {}) };
  if (name === 'view') return { name: 'read', arguments: { path, ...range } };
  if (name === 'edit') return { name: 'edit', arguments: { path, oldText: input.old_string, newText: input.new_string } };
  if (name === 'write') return { name: 'write', arguments: { path, content: input.content } };
  if (name === 'bash') return { name: 'bash', arguments: { command: input.command } };
  return { name, arguments: input };
}

/** A user message's parts as text: its text, and a marker for an attached image or file (its bytes are not text). */
function requestText(parts: readonly Json[]): string {
  return parts
    .map((part) => (part.type === 'text' ? str(data(part).text) : part.type === 'image_url' ? '[image]' : part.type === 'binary' ? `[file ${str(data(part).path)}]` : ''))
    .filter((piece) => piece !== '')
    .join('\n');
}

/**
 * A Crush session: each assistant row is one model call (its text and tool calls; hidden `reasoning` parts left out);
 * each `tool_result` part follows its call, verbatim, failed when Crush marked it `is_error`; user rows are requests.
 * Left out: the summary Crush wrote when it compacted the session, and an assistant row with no response in it (an
 * API error Crush recorded, e.g. "Internal Server Error"): counted as unreadable. Times are the recorded `created_at`.
 */
export function fromCrush(input: string, start = 0): ConvertedSession {
  const read = crushRows(input);
  if (!read) return { cwd: '', model: 'unknown', start, entries: [], skippedLines: 1 };
  const messages: TimedMessage[] = [];
  const toolNames = new Map<string, string>();
  let skipped = read.skipped;
  let model = '';
  for (const row of read.rows) {
    const at = row.createdAt !== undefined ? { at: row.createdAt } : {};
    if (row.isSummary) {
      skipped++;
      continue;
    }
    if (row.role === 'assistant') {
      const content: PiPart[] = [];
      for (const part of row.parts) {
        const fields = data(part);
        if (part.type === 'text' && str(fields.text) !== '') content.push(text(str(fields.text)));
        if (part.type === 'tool_call') {
          const call = crushTool(str(fields.name), toolInput(fields.input));
          toolNames.set(str(fields.id), call.name);
          content.push({ type: 'toolCall', id: str(fields.id), ...call });
        }
      }
      if (content.length === 0) {
        skipped++;
        continue;
      }
      model ||= row.model;
      messages.push({ message: { role: 'assistant', content, model: row.model || model || 'unknown', timestamp: 0 }, ...at });
    } else if (row.role === 'tool') {
      for (const part of row.parts.filter((p) => p.type === 'tool_result')) {
        const fields = data(part);
        const id = str(fields.tool_call_id);
        const output = str(fields.content) !== '' || str(fields.data) === '' ? str(fields.content) : `[${str(fields.mime_type) || 'binary'} output]`;
        const toolName = toolNames.get(id) ?? crushTool(str(fields.name), {}).name;
        messages.push({ message: { role: 'toolResult', toolCallId: id, toolName, content: [text(output)], isError: fields.is_error === true, timestamp: 0 }, ...at });
      }
    } else if (row.role === 'user') {
      const request = requestText(row.parts);
      if (request.trim() !== '') messages.push({ message: { role: 'user', content: [text(request)], timestamp: 0 }, ...at });
      else skipped++;
    } else skipped++;
  }
  const entries = settleTimes(messages, start);
  return { cwd: '', model: model || 'unknown', start: entries[0]?.message.timestamp ?? start, entries, skippedLines: skipped };
}
