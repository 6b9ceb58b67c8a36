// Instruction files the user keeps in the workspace (AGENTS.md, Copilot's instructions): read, capped, and rendered as one system prompt section.

/** Read from the first workspace folder, in this order. */
export const INSTRUCTION_FILES = ['AGENTS.md', '.github/copilot-instructions.md'] as const;
/** Each file joins the system prompt with at most this many characters. */
export const INSTRUCTION_FILE_CHARS = 8000;
/** First line of the section; the budget counts everything from it on as the instructions part. */
export const INSTRUCTIONS_HEADING = '# Instructions from the user\'s files';

export interface InstructionFile {
  /** Workspace-relative path. */
  path: string;
  /** The file's text, at most INSTRUCTION_FILE_CHARS. */
  text: string;
  /** The whole file's length in characters, when the text was cut. */
  cutFrom?: number;
}

/** Reads each instruction file that exists and is not blank; a file that cannot be read is left out. */
export async function readInstructionFiles(read: (path: string) => Promise<string>, maxChars: number = INSTRUCTION_FILE_CHARS): Promise<InstructionFile[]> {
  const files: InstructionFile[] = [];
  for (const path of INSTRUCTION_FILES) {
    const text = await read(path).catch(() => undefined);
    if (text === undefined || text.trim() === '') continue;
    const trimmed = text.trim();
    files.push(trimmed.length > maxChars ? { path, text: trimmed.slice(0, maxChars), cutFrom: trimmed.length } : { path, text: trimmed });
  }
  return files;
}

/** The system prompt section: a heading, then each file delimited by its path, with a note where it was cut. */
export function instructionsSection(files: readonly InstructionFile[]): string {
  if (files.length === 0) return '';
  const blocks = files.map((file) => {
    const cut =
      file.cutFrom === undefined
        ? ''
        : `\n[cut: ${file.path} has ${file.cutFrom} characters; only the first ${file.text.length} are shown here. Read the rest with read_file if it matters.]`;
    return `<instructions file="${file.path}">\n${file.text}${cut}\n</instructions>`;
  });
  return [
    INSTRUCTIONS_HEADING,
    'The user keeps these instructions for agents working in this project. Follow them unless the user\'s request says otherwise.',
    ...blocks,
  ].join('\n\n');
}

/** The system prompt split at the instructions section (which is always its last part): the base prompt and the section. */
export function splitInstructions(systemPrompt: string): { base: string; instructions: string } {
  const at = systemPrompt.indexOf(`\n\n${INSTRUCTIONS_HEADING}\n`);
  if (at < 0) return { base: systemPrompt, instructions: '' };
  return { base: systemPrompt.slice(0, at), instructions: systemPrompt.slice(at) };
}
