// Compaction, stage 2a: the prompts the summarizer is sent (the summary, a split turn's head, a correction).
import type { ChatMessage } from '../context/chatMessage';
import { APPENDIX_HEADING } from './summaryAppendix';

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
  /** 1-based part number when the input is split to fit the summarizer's window, and whether more parts follow. */
  chunk?: { index: number; last: boolean };
  /** The user's request the conversation ends in, verbatim, even when an earlier summary covered it. */
  currentRequest?: string | null;
  /** The size the summary must stay within (compaction.summaryTokens), told to the model. */
  maxTokens?: number;
  /** Parts the person dropped from the context on purpose (left out of the transcript), one line each. */
  dropped?: readonly string[];
}

export function summaryMessages(request: SummaryRequest): ChatMessage[] {
  const parts: string[] = [];
  if (request.previousSummary) {
    parts.push('Summary of everything before this part of the conversation:', `<previous-summary>\n${request.previousSummary}\n</previous-summary>`);
  }
  if (request.chunk && !(request.chunk.index === 1 && request.chunk.last)) {
    parts.push(`The conversation is given in parts, one request each; this is part ${request.chunk.index}${request.chunk.last ? ', the last' : '; more parts follow'}.`);
  }
  parts.push(`<conversation>\n${request.transcript}\n</conversation>`);
  if (request.dropped && request.dropped.length > 0) {
    parts.push(
      `The user dropped these parts of the conversation on purpose (a failed approach, output not needed), so they are left out above. Do not describe their content as progress or plan to redo them; under Key decisions, say that they were dropped:\n${request.dropped.map((part) => `- ${part}`).join('\n')}`,
    );
  }
  if (request.currentRequest) parts.push(`The user's request the work is on, verbatim (keep it in the Goal):\n<request>\n${request.currentRequest}\n</request>`);
  parts.push('Write the updated summary covering the previous summary and this conversation, with the required headings.');
  if (request.maxTokens) parts.push(`Keep the summary within ${request.maxTokens} tokens; the file lists and the user's requests are appended separately.`);
  if (request.instructions?.trim()) parts.push(`Additional instructions from the user for this summary:\n${request.instructions.trim()}`);
  return [
    { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/**
 * The head of a turn that was cut in the middle: summarized on its own, in a few lines. A head too long for one
 * request is given in parts, each with the bullets written for the parts before it.
 */
export function turnPrefixMessages(transcript: string, earlier?: string | null): ChatMessage[] {
  const before = earlier?.trim() ? `Bullets for the earlier steps of this turn (update them):\n<bullets>\n${earlier.trim()}\n</bullets>\n\n` : '';
  return [
    {
      role: 'system',
      content:
        'You summarize the first steps of an unfinished coding-agent turn. You have no tools. In a few short bullet points, state what the user asked in this turn and what was done so far (files, commands, findings). Reply with the bullets only.',
    },
    { role: 'user', content: `${before}<turn-start>\n${transcript}\n</turn-start>` },
  ];
}

export function correctionMessage(problems: readonly string[]): ChatMessage {
  return {
    role: 'user',
    content: `Your summary has these problems:\n${problems.map((problem) => `- ${problem}`).join('\n')}\nRewrite the complete summary, fixing them, with all required headings.`,
  };
}
