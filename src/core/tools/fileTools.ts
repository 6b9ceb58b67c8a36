// Read-only workspace tools: read_file, list_dir, find_files, search_text.
import { defineTool, displayPath } from './defineTool';
import type { Tool } from './toolTypes';

const READ_DEFAULT_LINES = 2000;
const LONG_LINE_CHARS = 2000;
const MAX_RESULTS = 200;

export const readFileTool: Tool = defineTool(
  'read_file',
  `Read a text file of the workspace with numbered lines. Reads at most ${READ_DEFAULT_LINES} lines per call; use startLine/endLine for other parts.`,
  {
    path: { type: 'string', description: 'File path, relative to the workspace folder.', required: true },
    startLine: { type: 'integer', description: 'First line to read (1-based).', minimum: 1 },
    endLine: { type: 'integer', description: 'Last line to read (inclusive).', minimum: 1 },
  },
  async (args, context) => {
    const text = await context.workspace.readFile(args.path);
    const shown = displayPath(args.path, context);
    if (text.includes('\0')) return { text: `${shown} looks like a binary file; it was not read.`, isError: true };
    const lines = text.split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const start = args.startLine ?? 1;
    if (start > Math.max(lines.length, 1)) {
      return { text: `${shown} has ${lines.length} lines; startLine ${start} is past the end.`, isError: true };
    }
    if (args.endLine !== undefined && args.endLine < start) {
      return { text: `endLine (${args.endLine}) is before startLine (${start}).`, isError: true };
    }
    const end = Math.min(lines.length, args.endLine ?? start + READ_DEFAULT_LINES - 1);
    const width = String(end).length;
    const body = lines
      .slice(start - 1, end)
      .map((line, index) => {
        const cut = line.length > LONG_LINE_CHARS ? `${line.slice(0, LONG_LINE_CHARS)} [... line cut at ${LONG_LINE_CHARS} chars]` : line;
        return `${String(start + index).padStart(width)}\t${cut}`;
      })
      .join('\n');
    const more = end < lines.length ? `\n[${shown}: lines ${start}-${end} of ${lines.length}; read on with startLine ${end + 1}]` : '';
    return { text: (body || '[empty file]') + more, isError: false, files: { read: [shown] } };
  },
);

export const listDirTool: Tool = defineTool(
  'list_dir',
  'List the entries of a workspace folder (folders end with "/").',
  { path: { type: 'string', description: 'Folder path relative to the workspace folder; "." for the root.' } },
  async (args, context) => {
    const path = args.path ?? '.';
    const entries = await context.workspace.listDir(path);
    if (entries.length === 0) return { text: `${displayPath(path, context)} is empty.`, isError: false };
    const lines = entries.map((entry) => {
      if (entry.kind === 'directory') return `${entry.name}/`;
      return entry.kind === 'symlink' ? `${entry.name} (symlink)` : entry.name;
    });
    return { text: lines.join('\n'), isError: false };
  },
);

export const findFilesTool: Tool = defineTool(
  'find_files',
  'Find workspace files by glob (e.g. "**/*.ts", "src/**/test*.py"). A pattern without "/" matches file names at any depth.',
  {
    glob: { type: 'string', description: 'Glob pattern matched against workspace-relative paths.', required: true },
    limit: { type: 'integer', description: `Maximum results (default ${MAX_RESULTS}).`, minimum: 1 },
  },
  async (args, context) => {
    const limit = Math.min(args.limit ?? MAX_RESULTS, 5000);
    const files = await context.workspace.findFiles(args.glob, limit + 1, context.signal);
    if (files.length === 0) return { text: `No files match ${JSON.stringify(args.glob)}.`, isError: false };
    const more = files.length > limit ? `\n[more than ${limit} files match; narrow the glob]` : '';
    return { text: files.slice(0, limit).join('\n') + more, isError: false };
  },
);

export const searchTextTool: Tool = defineTool(
  'search_text',
  'Search the text of workspace files; returns path:line: text for each matching line.',
  {
    pattern: { type: 'string', description: 'Text to find (or a JavaScript regular expression with isRegex).', required: true },
    isRegex: { type: 'boolean', description: 'Treat pattern as a regular expression (default false).' },
    glob: { type: 'string', description: 'Only search files matching this glob.' },
    limit: { type: 'integer', description: `Maximum matching lines (default ${MAX_RESULTS}).`, minimum: 1 },
  },
  async (args, context) => {
    if (args.pattern === '') return { text: 'search_text: "pattern" must not be empty.', isError: true };
    const limit = Math.min(args.limit ?? MAX_RESULTS, 5000);
    const result = await context.workspace.searchText(args.pattern, {
      isRegex: args.isRegex ?? false,
      glob: args.glob,
      limit: limit + 1,
      signal: context.signal,
    });
    if (context.signal.aborted) return { text: '[cancelled by the user]', isError: true };
    const notes = result.notes.map((note) => `\n[${note}]`).join('');
    if (result.matches.length === 0) return { text: `No matches for ${JSON.stringify(args.pattern)}.${notes}`, isError: false };
    const lines = result.matches.slice(0, limit).map((match) => `${match.path}:${match.line}: ${match.text.slice(0, 500)}`);
    const more = result.matches.length > limit ? `\n[more than ${limit} matches; narrow the pattern or glob]` : '';
    return { text: lines.join('\n') + more + notes, isError: false };
  },
);
