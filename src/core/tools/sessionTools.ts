// Tools that read the session itself: read_stored_output (full tool outputs) and read_transcript (pre-compaction history).
import type { SessionEntry, ToolResultEntry } from '../session/entries';
import { defineTool } from './defineTool';
import { renderTranscript } from './transcriptText';
import type { SessionAccess, Tool, ToolContext, ToolOutput } from './toolTypes';

function findToolResult(session: SessionAccess, id: string): ToolResultEntry | undefined {
  const entry = session.entry(id);
  if (entry?.type === 'toolResult') return entry;
  // Ids in cap notes may be tool call ids; the newest result on the current path wins.
  const path = session.path();
  for (let i = path.length - 1; i >= 0; i--) {
    const candidate = path[i];
    if (candidate?.type === 'toolResult' && candidate.toolCallId === id) return candidate;
  }
  return undefined;
}

interface Page {
  text: string;
  isError: boolean;
}

/** A page of `text` by line range or char range, with a note on how to continue. */
export function pageOf(text: string, range: { offset?: number; length?: number; startLine?: number; endLine?: number }, limits: ToolContext['limits'], label: string): Page {
  if (range.startLine !== undefined || range.endLine !== undefined) {
    const lines = text.split('\n');
    const start = range.startLine ?? 1;
    if (start > lines.length) return { text: `${label} has ${lines.length} lines; startLine ${start} is past the end.`, isError: true };
    const requestedEnd = Math.min(lines.length, range.endLine ?? lines.length);
    if (requestedEnd < start) return { text: `endLine (${requestedEnd}) is before startLine (${start}).`, isError: true };
    let end = Math.min(requestedEnd, start + limits.pageLines - 1);
    let body = lines.slice(start - 1, end).join('\n');
    while (body.length > limits.pageChars && end > start) {
      end = start + Math.floor((end - start) / 2);
      body = lines.slice(start - 1, end).join('\n');
    }
    if (body.length > limits.pageChars) body = body.slice(0, limits.pageChars);
    const more = end < requestedEnd ? `\n[${label}: lines ${start}-${end} of ${lines.length}; continue with startLine ${end + 1}]` : '';
    return { text: body + more, isError: false };
  }
  const offset = range.offset ?? 0;
  if (offset > text.length) return { text: `${label} has ${text.length} chars; offset ${offset} is past the end.`, isError: true };
  const end = Math.min(text.length, offset + Math.min(range.length ?? Infinity, limits.pageChars));
  const more = end < text.length ? `\n[${label}: chars ${offset}-${end} of ${text.length}; continue with offset ${end}]` : '';
  return { text: text.slice(offset, end) + more, isError: false };
}

const noSession = (tool: string): ToolOutput => ({ text: `${tool} is not available: no session is open.`, isError: true });

export const readStoredOutputTool: Tool = defineTool(
  'read_stored_output',
  'Read the full stored output of an earlier tool call by its entry id (shown in pruned or shortened outputs). Use startLine/endLine or offset/length for a part.',
  {
    entryId: { type: 'string', description: 'Entry id of the stored tool output (as named in the pruned or shortened output).' },
    id: { type: 'string', description: 'Same as entryId (either is accepted).' },
    startLine: { type: 'integer', description: 'First line (1-based).', minimum: 1 },
    endLine: { type: 'integer', description: 'Last line (inclusive).', minimum: 1 },
    offset: { type: 'integer', description: 'First character (0-based).', minimum: 0 },
    length: { type: 'integer', description: 'Number of characters.', minimum: 1 },
  },
  async (args, context) => {
    if (!context.session) return noSession('read_stored_output');
    const id = args.entryId ?? args.id;
    if (id === undefined) return { text: 'read_stored_output: "entryId" is required.', isError: true };
    const entry = findToolResult(context.session, id);
    if (!entry) return { text: `read_stored_output: no tool output with id ${JSON.stringify(id)} in this session.`, isError: true };
    const full = entry.blob ? await context.session.readBlob(entry.blob) : entry.content;
    const page = pageOf(full, args, context.limits, `output ${entry.id} (${entry.toolName})`);
    return { ...page, text: page.text === '' ? '[empty output]' : page.text };
  },
);

function transcriptRange(path: readonly SessionEntry[], compactionId: string | undefined): { entries: readonly SessionEntry[]; label: string } | { error: string } {
  const compactions = path.filter((entry) => entry.type === 'compaction');
  const compaction = compactionId === undefined ? compactions[compactions.length - 1] : compactions.find((entry) => entry.id === compactionId);
  if (compactionId !== undefined && !compaction) return { error: `read_transcript: no compaction ${JSON.stringify(compactionId)} on the current branch.` };
  if (!compaction || compaction.type !== 'compaction') return { entries: path, label: 'transcript' };
  const compactionIndex = path.indexOf(compaction);
  const keptIndex = compaction.firstKeptEntryId === null ? -1 : path.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  const end = keptIndex === -1 || keptIndex > compactionIndex ? compactionIndex : keptIndex;
  return { entries: path.slice(0, end), label: `transcript before compaction ${compaction.id}` };
}

export const readTranscriptTool: Tool = defineTool(
  'read_transcript',
  'Read the earlier conversation that a compaction summarized, as plain text, page by page. Defaults to the latest compaction.',
  {
    compactionId: { type: 'string', description: 'Id of the compaction whose summarized part to read (default the latest).' },
    startMessage: { type: 'integer', description: 'First message number (#n) to include.', minimum: 1 },
    endMessage: { type: 'integer', description: 'Last message number (#n) to include.', minimum: 1 },
    offset: { type: 'integer', description: 'Character offset into the rendered text (for the next page).', minimum: 0 },
  },
  async (args, context) => {
    if (!context.session) return noSession('read_transcript');
    const range = transcriptRange(context.session.path(), args.compactionId);
    if ('error' in range) return { text: range.error, isError: true };
    const text = renderTranscript(range.entries, { startMessage: args.startMessage, endMessage: args.endMessage });
    if (text === '') return { text: `The ${range.label} has no messages in that range.`, isError: false };
    return Promise.resolve(pageOf(text, { offset: args.offset }, context.limits, range.label));
  },
);
