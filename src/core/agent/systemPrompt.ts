// The agent's system prompt: its tools, how pruned and shortened outputs come back, and what summaries mean.
import { instructionsSection, type InstructionFile } from '../context/instructionFiles';

export interface SystemPromptOptions {
  /** Tool names offered to the model (built-ins and external ones). */
  toolNames: readonly string[];
  workspaceRoots?: readonly string[];
  /** Extra project instructions appended at the end (e.g. from a settings file). */
  extra?: string;
  /** The user's instruction files (AGENTS.md, .github/copilot-instructions.md): the last section, delimited. */
  instructions?: readonly InstructionFile[];
}

const BUILTIN_HINTS: Record<string, string> = {
  read_file: 'read a file (numbered lines; use startLine/endLine for large files)',
  list_dir: 'list a folder',
  find_files: 'find files by glob',
  search_text: 'search file contents',
  write_file: 'create or overwrite a file (the user confirms)',
  edit_file: 'replace one exact, unique piece of text in a file (the user confirms)',
  run_command: 'run a shell command in the workspace (the user confirms; output is shortened when long)',
  read_stored_output: 'read back a stored tool output by its entry id',
  read_transcript: 'read the earlier conversation that a summary replaced',
  delegate: 'hand a self-contained exploration (searching, reading many files) to a read-only sub-agent; only its answer comes back, so the exploration does not fill this context',
};

export function buildSystemPrompt(options: SystemPromptOptions): string {
  const tools = options.toolNames.map((name) => `- ${name}${BUILTIN_HINTS[name] ? `: ${BUILTIN_HINTS[name]}` : ''}`);
  const roots = options.workspaceRoots?.length ? `\nWorkspace folder${options.workspaceRoots.length > 1 ? 's' : ''}: ${options.workspaceRoots.join(', ')}.` : '';
  const parts = [
    `You are a coding agent working in the user's workspace inside VS Code. Use the tools to inspect and change the project; do not guess file contents.${roots}`,
    `Tools:\n${tools.join('\n')}`,
    [
      'Working rules:',
      '- Paths are relative to the workspace folder; files outside it cannot be accessed.',
      '- Read a file before editing it; prefer edit_file with enough surrounding text to match exactly once.',
      '- Keep going with tool calls until the task is done, then answer briefly with what you did.',
    ].join('\n'),
    [
      'Context management:',
      '- Long tool outputs are shortened to their head and tail; the note in the middle gives the entry id and line range to pass to read_stored_output.',
      '- Old tool outputs may be pruned to save space and replaced by a short placeholder with their entry id; call read_stored_output with that id if you need them again.',
      '- Earlier parts of the conversation may be replaced by a summary, given at the start as a user message. Trust it as a record of work already done; use read_transcript if you need the exact earlier messages.',
    ].join('\n'),
  ];
  if (options.extra?.trim()) parts.push(options.extra.trim());
  const instructions = instructionsSection(options.instructions ?? []);
  if (instructions) parts.push(instructions);
  return parts.join('\n\n');
}
