// The summarizer's prompts: structured sections, the user's /compact instructions, and the deterministic appendix.
import type { ChatMessage } from '../context/chatMessage';
import type { FileLedger } from '../session/entries';

/** Sections the model must write, in order (validated by summaryValidation). */
export const REQUIRED_HEADINGS = [
  '## Goal',
  '## Constraints and preferences',
  '## Progress',
  '### Done',
  '### In progress',
  '### Blocked',
  '## Key decisions',
  '## Next steps',
  '## Critical context',
] as const;

/**
 * Where the deterministic appendix begins; a previous summary is cut here before it is re-summarized.
 * Distinct from anything a model writes, so a summary with its own "## Files" section is never cut there.
 */
export const APPENDIX_HEADING = '## Files (recorded by the agent)';

export const SUMMARY_SYSTEM_PROMPT = [
  'You are performing a CONTEXT CHECKPOINT COMPACTION for a coding agent. You have no tools.',
  'Write a handoff summary that lets another model continue the work without the conversation.',
  'Be concise and concrete: exact file paths, function names, commands, error messages, numbers.',
  'Reply with the summary only, in Markdown, using exactly these headings in this order:',
  '',
  ...REQUIRED_HEADINGS,
  '',
  'Write "(none)" under a heading with nothing to say, except Next steps: it must list at least one action.',
  `Do not write a "${APPENDIX_HEADING}" section: the file lists are appended automatically.`,
].join('\n');

export interface SummaryRequest {
  transcript: string;
  /** The previous compaction's summary, or the running summary of earlier chunks. */
  previousSummary?: string | null;
  instructions?: string;
  /** 1-based chunk number and count when the input was split to fit the summarizer's window. */
  chunk?: { index: number; count: number };
  /** The user's request the conversation ends in, verbatim, even when an earlier summary covered it. */
  currentRequest?: string | null;
  /** The size the summary must stay within (compaction.summaryTokens), told to the model. */
  maxTokens?: number;
}

export function summaryMessages(request: SummaryRequest): ChatMessage[] {
  const parts: string[] = [];
  if (request.previousSummary) {
    parts.push('Summary of everything before this part of the conversation:', `<previous-summary>\n${request.previousSummary}\n</previous-summary>`);
  }
  if (request.chunk && request.chunk.count > 1) {
    parts.push(`The conversation is given in ${request.chunk.count} parts; this is part ${request.chunk.index}.`);
  }
  parts.push(`<conversation>\n${request.transcript}\n</conversation>`);
  if (request.currentRequest) parts.push(`The user's request the work is on, verbatim (keep it in the Goal):\n<request>\n${request.currentRequest}\n</request>`);
  parts.push('Write the updated summary covering the previous summary and this conversation, with the required headings.');
  if (request.maxTokens) parts.push(`Keep the summary within ${request.maxTokens} tokens; the file lists and the user's requests are appended separately.`);
  if (request.instructions?.trim()) parts.push(`Additional instructions from the user for this summary:\n${request.instructions.trim()}`);
  return [
    { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/** The head of a turn that was cut in the middle: summarized on its own, in a few lines. */
export function turnPrefixMessages(transcript: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You summarize the first steps of an unfinished coding-agent turn. You have no tools. In a few short bullet points, state what the user asked in this turn and what was done so far (files, commands, findings). Reply with the bullets only.',
    },
    { role: 'user', content: `<turn-start>\n${transcript}\n</turn-start>` },
  ];
}

export function correctionMessage(problems: readonly string[]): ChatMessage {
  return {
    role: 'user',
    content: `Your summary has these problems:\n${problems.map((problem) => `- ${problem}`).join('\n')}\nRewrite the complete summary, fixing them, with all required headings.`,
  };
}

function list(items: readonly string[]): string {
  return items.length > 0 ? items.map((item) => `- ${item}`).join('\n') : '- (none)';
}

export interface AppendixInput {
  files: FileLedger;
  lastUserRequest: string | null;
  /** The user's earlier requests, oldest first, verbatim (see earlierRequests in summarizer.ts). */
  earlierRequests?: readonly string[];
  /** One-line references to pinned messages (their text is re-sent verbatim by the context builder). */
  pinned: readonly string[];
}

/** Appended verbatim by code, never by the model, so file lists and the user's words cannot be lost. */
export function summaryAppendix(input: AppendixInput): string {
  const sections = [
    `${APPENDIX_HEADING}\n### Read\n${list(input.files.read)}\n### Modified\n${list(input.files.modified)}`,
    `## Last user request\n${input.lastUserRequest ?? '(none)'}`,
  ];
  // Numbered and verbatim (multi-line requests stay intact), oldest first.
  if (input.earlierRequests && input.earlierRequests.length > 0) sections.push(`## Earlier user requests\n${input.earlierRequests.map((request, index) => `${index + 1}. ${request}`).join('\n')}`);
  if (input.pinned.length > 0) sections.push(`## Pinned messages\n${list(input.pinned)}`);
  return sections.join('\n\n');
}

/** The model-written part of a summary (the appendix is rebuilt at every compaction). */
export function stripAppendix(summary: string): string {
  const at = summary.lastIndexOf(`\n${APPENDIX_HEADING}\n`);
  const start = summary.startsWith(`${APPENDIX_HEADING}\n`) && at < 0 ? 0 : at;
  return (start >= 0 ? summary.slice(0, start) : summary).trim();
}
