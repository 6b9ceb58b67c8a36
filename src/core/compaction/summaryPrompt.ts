// Compaction, stage 2a: what the summarizer is sent (transcript, prompts, the code-written appendix) and how a summary is checked.
import type { ChatMessage } from '../context/chatMessage';
import { omittedFrom, type BoundedList } from '../session/boundedList';
import type { FileLedger, MessageEntry } from '../session/entries';

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

// ─── The transcript: entries as text, long outputs as head and tail, in chunks that fit ───

/** Tool outputs and arguments longer than this reach the summarizer as head + tail. */
export const SUMMARY_OUTPUT_CHARS = 2000;

/** Keeps the head and tail of a long text with a note of what was left out. */
export function headTail(text: string, maxChars: number = SUMMARY_OUTPUT_CHARS): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} chars omitted …]\n${text.slice(-half)}`;
}

/**
 * `text` within `limit` tokens: whole when it fits, else its head and tail, shortened until the count agrees (text
 * dense in tokens, such as symbols or CJK, takes more than four characters a token).
 */
export function fitTokens(text: string, limit: number, countTokens: (text: string) => number): string {
  let tokens = countTokens(text);
  let fitted = text;
  while (tokens > limit && fitted.length > 200) {
    fitted = headTail(fitted, Math.max(200, Math.floor(((fitted.length * limit) / tokens) * 0.9)));
    tokens = countTokens(fitted);
  }
  return fitted;
}

/**
 * A tool output already pruned from the context reaches the summarizer shorter still: the model had worked past it
 * (its placeholder was all it saw), its head and tail still name what it showed, and it stays readable by id. At an
 * 8k window this halves the summary calls per compaction (BENCHMARKS.md, row 8).
 */
export const PRUNED_SUMMARY_OUTPUT_CHARS = 600;

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * One transcript block per entry. User text stays whole (it carries the requirements); attachments are shortened like
 * outputs; an output in `pruned` (ids of tool results pruned on the path) is shortened more.
 */
export function entryBlock(entry: MessageEntry, pruned: ReadonlySet<string> = NO_IDS): string {
  switch (entry.type) {
    case 'user': {
      const attached = (entry.attachments ?? []).map((attachment) => `[user attached ${attachment.label}]\n${headTail(attachment.text)}`);
      return [`[user${entry.synthetic ? ' (automatic)' : ''}]\n${entry.text}`, ...attached].join('\n');
    }
    case 'assistant': {
      const lines = entry.text.trim() ? [`[assistant]\n${entry.text}`] : [];
      for (const call of entry.toolCalls) lines.push(`[assistant calls ${call.name}] ${headTail(call.arguments)}`);
      if (entry.error) lines.push(`[assistant error] ${entry.error}`);
      return lines.length > 0 ? lines.join('\n') : '[assistant] (empty reply)';
    }
    case 'toolResult':
      return pruned.has(entry.id)
        ? `[${entry.toolName} ${entry.isError ? 'error' : 'result'}, pruned from the context earlier]\n${headTail(entry.content, PRUNED_SUMMARY_OUTPUT_CHARS)}`
        : `[${entry.toolName} ${entry.isError ? 'error' : 'result'}]\n${headTail(entry.content)}`;
  }
}

/**
 * Groups blocks into chunks of at most `budget` tokens, in order (each block counted with the blank line that
 * joins it). A single block larger than the budget is shortened (head/tail) to fit rather than dropped.
 */
export function chunkBlocks(blocks: readonly string[], budget: number, countTokens: (text: string) => number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const original of blocks) {
    const block = fitTokens(original, Math.max(1, budget - 1), countTokens);
    const tokens = countTokens(block) + 1;
    if (used + tokens > budget && current.length > 0) {
      chunks.push(current.join('\n\n'));
      current = [];
      used = 0;
    }
    current.push(block);
    used += tokens;
  }
  if (current.length > 0) chunks.push(current.join('\n\n'));
  return chunks;
}

// ─── The prompts and the appendix code writes ───

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
  /** Parts the person dropped from the context on purpose (left out of the transcript), one line each. */
  dropped?: readonly string[];
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
  if (input.pinned.length > 0) sections.push(`## Pinned messages\n${cappedLines(input.pinned, share('pinned'), bullet, false, 'pinned message')}`);
  if (dropped.length > 0) {
    const budget = Math.max(200, Math.floor(max * DROPPED_SHARE));
    const earlier = omittedFrom(dropped);
    sections.push(`${DROPPED_HEADING}\nLeft out of the context by the user, not by mistake; not to be redone or relied on:\n${cappedLines(dropped, budget, bullet, true, 'dropped part', earlier)}`);
  }
  return sections.join('\n\n');
}

/** The model-written part of a summary (the appendix is rebuilt at every compaction). */
export function stripAppendix(summary: string): string {
  const at = summary.lastIndexOf(`\n${APPENDIX_HEADING}\n`);
  const start = summary.startsWith(`${APPENDIX_HEADING}\n`) && at < 0 ? 0 : at;
  return (start >= 0 ? summary.slice(0, start) : summary).trim();
}

// ─── Validation: required sections, non-empty next steps, sizes ───

export interface ValidationLimits {
  /** Most tokens the model-written part may have. */
  maxTokens: number;
  countTokens: (text: string) => number;
  /** Fewest characters a real summary has. */
  minChars?: number;
  /** Most tokens the code-written appendix may have (it is capped to this when built). */
  maxAppendixTokens?: number;
}

const MIN_CHARS = 200;

function headingPattern(heading: string): RegExp {
  const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}\\s*$`, 'mi');
}

/** The text under a heading, up to the next heading of the same or higher level. */
export function sectionBody(text: string, heading: string): string | null {
  const match = headingPattern(heading).exec(text);
  if (!match) return null;
  const rest = text.slice(match.index + match[0].length);
  const level = heading.indexOf(' ');
  const next = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return (next >= 0 ? rest.slice(0, next) : rest).trim();
}

/** Problems of the model-written part; empty when it is acceptable. */
export function validateModelSummary(text: string, limits: ValidationLimits): string[] {
  const problems: string[] = [];
  for (const heading of REQUIRED_HEADINGS) {
    if (!headingPattern(heading).test(text)) problems.push(`missing section "${heading}"`);
  }
  const nextSteps = sectionBody(text, '## Next steps');
  if (nextSteps !== null && (nextSteps.length === 0 || /^[-*\s]*\(?none\)?\.?$/i.test(nextSteps))) {
    problems.push('"## Next steps" is empty: list at least one concrete next action');
  }
  if (text.trim().length < (limits.minChars ?? MIN_CHARS)) problems.push('the summary is too short to carry the session forward');
  const tokens = limits.countTokens(text);
  if (tokens > limits.maxTokens) problems.push(`the summary is ${tokens} tokens; keep it under ${limits.maxTokens}`);
  return problems;
}

/** Problems of the final summary (model part + appendix). */
export function validateSummary(text: string, limits: ValidationLimits): string[] {
  const at = text.search(headingPattern(APPENDIX_HEADING));
  const modelPart = at >= 0 ? text.slice(0, at) : text;
  const problems = validateModelSummary(modelPart, limits);
  if (at < 0) problems.push(`missing the file ledger ("${APPENDIX_HEADING}")`);
  if (at >= 0 && limits.maxAppendixTokens !== undefined) {
    const tokens = limits.countTokens(text.slice(at));
    if (tokens > limits.maxAppendixTokens) problems.push(`the recorded appendix is ${tokens} tokens; it may take at most ${limits.maxAppendixTokens}`);
  }
  return problems;
}
