// Writes a compaction summary with an injected model call: chunked input, validation, one corrective retry, appendix.
import type { ChatMessage } from '../context/chatMessage';
import { droppedEntryIds, pinnedEntryIds } from '../context/contextMarkers';
import { droppedParts } from '../context/contextDrops';
import type { CompactionEntry, FileLedger, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { CutPlan } from './cutPlan';
import { extendFileLedger } from './fileLedger';
import { chunkBlocks, entryBlock } from './summaryInput';
import { TURN_PREFIX_HEADING } from '../context/contextMarkers';
import { correctionMessage, stripAppendix, summaryAppendix, summaryMessages, turnPrefixMessages, type AppendixInput } from './summaryPrompt';
import { validateModelSummary, validateSummary } from './summaryValidation';

export type Complete = (messages: ChatMessage[], options: { maxTokens: number; signal?: AbortSignal }) => Promise<string>;

export interface SummarizeInput {
  path: readonly SessionEntry[];
  plan: Pick<CutPlan, 'summarizeEntryIds' | 'turnPrefixEntryIds' | 'firstKeptEntryId'>;
  previous: CompactionEntry | null;
  instructions?: string;
  complete: Complete;
  signal?: AbortSignal;
  counter: TokenCounter;
  /** Context window of the summarizing model. */
  summaryWindow: number;
  /** Most tokens the summary may take (default: 80 % of the 16k reserve, at most a quarter of the window). */
  maxSummaryTokens?: number;
}

export interface SummarizeResult {
  summary: string;
  turnPrefixSummary?: string;
  files: FileLedger;
  problems: string[];
  /** The summary failed validation twice: a person must review it before it is applied. */
  needsReview: boolean;
}

/** Headroom for the prompt's own text and the chat framing. */
const PROMPT_MARGIN = 1024;

function entriesById(path: readonly SessionEntry[], ids: readonly string[]): MessageEntry[] {
  const wanted = new Set(ids);
  return path.filter((entry): entry is MessageEntry => isMessageEntry(entry) && wanted.has(entry.id));
}

/** One model call, validated; on problems one corrective retry carrying the problems back. */
async function completeValidated(
  messages: ChatMessage[],
  input: SummarizeInput,
  maxTokens: number,
): Promise<{ text: string; problems: string[] }> {
  const limits = { maxTokens, countTokens: (text: string) => input.counter.countText(text) };
  const first = (await input.complete(messages, { maxTokens, signal: input.signal })).trim();
  const firstProblems = validateModelSummary(first, limits);
  if (firstProblems.length === 0) return { text: first, problems: [] };
  const retry = [...messages, { role: 'assistant' as const, content: first }, correctionMessage(firstProblems)];
  const second = (await input.complete(retry, { maxTokens, signal: input.signal })).trim();
  return { text: second, problems: validateModelSummary(second, limits) };
}

/** Index on the path of the last entry this compaction replaces (the summary covers everything up to it). */
function coveredEnd(path: readonly SessionEntry[], replaced: readonly MessageEntry[]): number {
  const last = replaced.at(-1);
  return last ? path.findIndex((entry) => entry.id === last.id) : -1;
}

/** Index of the first entry kept after the cut (the path's length when nothing before the compaction is kept). */
function cutIndex(path: readonly SessionEntry[], firstKeptEntryId: string | null): number {
  const at = firstKeptEntryId === null ? -1 : path.findIndex((entry) => entry.id === firstKeptEntryId);
  return at >= 0 ? at : path.length;
}

/** The appendix may take this share of the summary's token budget; it is capped, counted and validated. */
const APPENDIX_SHARE = 0.5;

/**
 * Every request the user made before the last one on the path up to `end`, oldest first (earlier compactions
 * included); requests the person dropped are named under "Dropped on purpose" instead.
 */
function earlierRequests(path: readonly SessionEntry[], end: number): string[] {
  const dropped = droppedEntryIds(path);
  const requests: string[] = [];
  for (let index = 0; index <= end; index++) {
    const entry = path[index];
    if (entry?.type === 'user' && !entry.synthetic && !dropped.has(entry.id)) requests.push(entry.text);
  }
  requests.pop();
  return requests;
}

/** True when the cut falls inside a turn: the context builder then carries that turn's request after the summary. */
function cutSplitsTurn(path: readonly SessionEntry[], firstKeptEntryId: string | null): boolean {
  if (firstKeptEntryId === null) return false;
  const first = path.find((entry) => entry.id === firstKeptEntryId);
  return first !== undefined && !(first.type === 'user' && !first.synthetic);
}

/**
 * The appendix within `limit` tokens: built at a character budget, then rebuilt smaller while the count
 * is over (text that is dense in tokens, such as symbols or CJK, takes more than four characters a token).
 */
function cappedAppendix(input: Omit<AppendixInput, 'maxChars'>, limit: number, count: (text: string) => number): string {
  let maxChars = limit * 4;
  let appendix = summaryAppendix({ ...input, maxChars });
  for (let attempt = 0; attempt < 4; attempt++) {
    const tokens = count(appendix);
    if (tokens <= limit) break;
    maxChars = Math.floor((maxChars * limit) / tokens * 0.9);
    appendix = summaryAppendix({ ...input, maxChars });
  }
  return appendix;
}

function lastUserRequest(path: readonly SessionEntry[], end: number): string | null {
  const dropped = droppedEntryIds(path);
  for (let index = end; index >= 0; index--) {
    const entry = path[index];
    if (entry?.type === 'user' && !entry.synthetic && !dropped.has(entry.id)) return entry.text;
  }
  return null;
}

/** What the previous compaction said, for the next summary: its model-written part and the split turn's summary. */
export function previousSummaryText(previous: CompactionEntry | null): string | null {
  if (!previous) return null;
  const parts = [stripAppendix(previous.summary)];
  if (previous.turnPrefixSummary?.trim()) parts.push(`${TURN_PREFIX_HEADING}\n${previous.turnPrefixSummary.trim()}`);
  return parts.join('\n\n');
}

/**
 * Pinned messages among everything summarized so far (this compaction and the earlier ones on the path).
 * The context builder re-inserts them verbatim after the summary, so the appendix only names each by its
 * first line: repeating the text sent it twice.
 */
function pinnedReferences(path: readonly SessionEntry[], end: number): string[] {
  const pinned = pinnedEntryIds(path);
  return path
    .slice(0, end + 1)
    .filter((entry): entry is MessageEntry => isMessageEntry(entry) && pinned.has(entry.id))
    .map((entry) => `kept verbatim after this summary: ${firstLine(entryBlock(entry))}`);
}

/** The first non-empty line after the block's role tag, shortened. */
function firstLine(block: string): string {
  const lines = block.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const [tag = '', body] = lines;
  const text = body !== undefined && /^\[[^\]]*\]$/.test(tag) ? `${tag} ${body}` : tag;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/**
 * Summarizes the previous summary plus the replaced entries. When that input exceeds the
 * summarizing model's window it is summarized in chunks, each with the running summary. The turn
 * prefix of a split turn gets its own short summary. The appendix (files, last request, pins) is
 * added by code. Two failed validations return needsReview instead of a silently bad summary.
 */
export async function summarize(input: SummarizeInput): Promise<SummarizeResult> {
  const maxTokens = input.maxSummaryTokens ?? Math.min(13_107, Math.floor(input.summaryWindow / 4));
  const replaced = entriesById(input.path, input.plan.summarizeEntryIds);
  const prefix = entriesById(input.path, input.plan.turnPrefixEntryIds);
  const count = (text: string) => input.counter.countText(text);
  const previousSummary = previousSummaryText(input.previous);
  const end = coveredEnd(input.path, [...replaced, ...prefix]);
  const request = lastUserRequest(input.path, end);
  const dropped = droppedParts(input.path, cutIndex(input.path, input.plan.firstKeptEntryId) - 1);
  const promptTokens = count(summaryMessages({ transcript: '', instructions: input.instructions }).map((m) => m.content).join('\n'));
  const chunkBudget = Math.max(1024, input.summaryWindow - 2 * maxTokens - promptTokens - PROMPT_MARGIN);
  const chunks = chunkBlocks(replaced.map(entryBlock), chunkBudget, count);
  let running = previousSummary;
  let problems: string[] = [];
  for (const [index, transcript] of (chunks.length > 0 ? chunks : ['(no new messages)']).entries()) {
    input.signal?.throwIfAborted();
    const chunk = { index: index + 1, count: chunks.length };
    const result = await completeValidated(summaryMessages({ transcript, previousSummary: running, instructions: input.instructions, chunk, currentRequest: request, maxTokens, dropped }), input, maxTokens);
    running = result.text;
    problems = result.problems;
  }
  let turnPrefixSummary: string | undefined;
  if (prefix.length > 0) {
    const prefixTranscript = chunkBlocks(prefix.map(entryBlock), chunkBudget, count).join('\n\n');
    turnPrefixSummary = (await input.complete(turnPrefixMessages(prefixTranscript), { maxTokens: Math.floor(maxTokens / 2), signal: input.signal })).trim();
    if (!turnPrefixSummary) problems.push('the summary of the split turn is empty');
  }
  const files = extendFileLedger(input.previous?.files, [...replaced, ...prefix]);
  const appendixLimit = Math.max(256, Math.floor(maxTokens * APPENDIX_SHARE));
  const appendix = cappedAppendix(
    { files, lastUserRequest: request, requestCarried: cutSplitsTurn(input.path, input.plan.firstKeptEntryId), earlierRequests: earlierRequests(input.path, end), pinned: pinnedReferences(input.path, end), dropped },
    appendixLimit,
    count,
  );
  const summary = `${running ?? ''}\n\n${appendix}`;
  const finalProblems = [...new Set([...problems, ...validateSummary(summary, { maxTokens, countTokens: count, maxAppendixTokens: appendixLimit })])];
  return { summary, turnPrefixSummary, files, problems: finalProblems, needsReview: finalProblems.length > 0 };
}
