// Tools that change files: write_file (whole file) and edit_file (one exact, unique replacement).
import { defineTool, displayPath } from './defineTool';
import type { Tool } from './toolTypes';

export const writeFileTool: Tool = defineTool(
  'write_file',
  'Create a file or replace its whole content. The user confirms the change. Prefer edit_file for changes to existing files.',
  {
    path: { type: 'string', description: 'File path relative to the workspace folder.', required: true },
    content: { type: 'string', description: 'The complete new content of the file.', required: true },
  },
  async (args, context) => {
    await context.workspace.writeFile(args.path, args.content, context.signal);
    const shown = displayPath(args.path, context);
    const lines = args.content === '' ? 0 : args.content.split('\n').length;
    return { text: `Wrote ${shown} (${lines} lines).`, isError: false, files: { modified: [shown] } };
  },
);

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

export const editFileTool: Tool = defineTool(
  'edit_file',
  'Replace one exact piece of text in a file. oldText must match the file exactly (whitespace included) and occur exactly once; include surrounding lines to make it unique. The user confirms the change.',
  {
    path: { type: 'string', description: 'File path relative to the workspace folder.', required: true },
    oldText: { type: 'string', description: 'The exact text to replace.', required: true },
    newText: { type: 'string', description: 'The replacement text.', required: true },
  },
  async (args, context) => {
    const shown = displayPath(args.path, context);
    if (args.oldText === '') return { text: 'edit_file: "oldText" must not be empty; use write_file to create a file.', isError: true };
    if (args.oldText === args.newText) return { text: 'edit_file: oldText and newText are identical; nothing to change.', isError: true };
    const text = await context.workspace.readFile(args.path);
    let { oldText, newText } = args;
    // Models write "\n"; a CRLF file would otherwise never match.
    if (text.includes('\r\n') && !oldText.includes('\r\n') && oldText.includes('\n')) {
      oldText = oldText.replace(/\n/g, '\r\n');
      newText = newText.replace(/\r?\n/g, '\r\n');
    }
    const found = occurrences(text, oldText);
    if (found.length === 0) {
      return {
        text: `edit_file: oldText was not found in ${shown}. Read the file again with read_file and copy the text exactly, including indentation.`,
        isError: true,
      };
    }
    if (found.length > 1) {
      const lines = found.slice(0, 10).map((offset) => lineOf(text, offset));
      return {
        text: `edit_file: oldText occurs ${found.length} times in ${shown} (lines ${lines.join(', ')}); include more surrounding text so it matches exactly once.`,
        isError: true,
      };
    }
    const offset = found[0] ?? 0;
    await context.workspace.applyEdit(args.path, { offset, oldText, newText }, context.signal);
    return { text: `Edited ${shown} at line ${lineOf(text, offset)}.`, isError: false, files: { modified: [shown] } };
  },
);
