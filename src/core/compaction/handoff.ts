// Hand-off: a summary of the whole context, reviewed like a compaction, that seeds a new session linked to its source.
import type { CountingDeps } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { contextSpan } from '../budget/pathState';
import type { CompactionEntry, HandoffSource, MessageEntry } from '../session/entries';
import { newEntryId } from '../session/newEntry';
import { fixedOf, onlyMarkedSince, sizes, summaryInstructions, type CompactionLog, type CompactionProposal, type ProposeOptions } from './compaction';

/** The first entry of the new session: the summary, with nothing kept verbatim after it. */
function seedEntry(fields: Pick<CompactionEntry, 'summary' | 'files'> & { handoffFrom?: HandoffSource }): CompactionEntry {
  return { type: 'compaction', id: `draft-${newEntryId()}`, parentId: null, timestamp: new Date().toISOString(), firstKeptEntryId: null, tokensBefore: 0, tokensAfter: 0, edited: false, auto: false, ...fields };
}

/** What the new session's first call would send with this summary, measured by the meter. */
export function measureSeed(summary: string, files: CompactionEntry['files'], deps: CountingDeps): ReturnType<typeof measureContext> {
  return measureContext([seedEntry({ summary, files })], deps);
}

/**
 * Summarizes everything the model sees now (the previous summary and every message since, less what was
 * dropped) for a new session. Null when the context holds no message yet. Nothing is written.
 */
export async function proposeHandoff(log: CompactionLog, options: ProposeOptions): Promise<CompactionProposal | null> {
  const path = log.path();
  const measured = measureContext(path, options);
  const { messages } = contextSpan(path);
  if (messages.length === 0) return null;
  const byId = new Map(messages.map((entry) => [entry.id, entry] as const));
  const result = await options.summarize({
    entries: messages,
    turnPrefixEntries: [],
    instructions: summaryInstructions(options.settings.compaction.customInstructions, options.instructions),
    maxSummaryTokens: measured.thresholds.summaryTokens,
    signal: options.signal,
  });
  const after = measureSeed(result.summary, result.files, options);
  return {
    ...result,
    handoff: true,
    firstKeptEntryId: null,
    summarized: sizes(messages.map((entry: MessageEntry) => entry.id), byId, measured),
    kept: [],
    tokensBefore: measured.budget.used,
    tokensAfter: after.budget.used,
    fixedTokens: fixedOf(after),
    keptTokens: 0,
    leafId: log.leafId,
    instructions: options.instructions,
  };
}

export interface HandoffOptions {
  summary: string;
  edited: boolean;
  model?: string;
  source: HandoffSource;
  deps: CountingDeps;
  /** Creates the new session's log, its header naming the source. */
  create: (source: HandoffSource) => Promise<CompactionLog>;
}

/**
 * Starts the new session: its first entry is the reviewed summary, linked back to the source. The source is
 * not written to (it stays whole). Refuses when the source moved on since the proposal or the summary is empty.
 */
export async function startHandoff(source: CompactionLog, proposal: CompactionProposal, options: HandoffOptions): Promise<{ log: CompactionLog; entry: CompactionEntry }> {
  if (!proposal.handoff) throw new Error('That proposal is a compaction, not a hand-off.');
  if (!onlyMarkedSince(source, proposal.leafId)) throw new Error('The session changed since this hand-off summary was made; nothing was started. Hand off again.');
  if (options.summary.trim() === '') throw new Error('The hand-off summary is empty; no session was started.');
  const tokensAfter = options.summary === proposal.summary ? proposal.tokensAfter : measureSeed(options.summary, proposal.files, options.deps).budget.used;
  const log = await options.create(options.source);
  const entry = await log.append({
    type: 'compaction',
    summary: options.summary,
    firstKeptEntryId: null,
    tokensBefore: proposal.tokensBefore,
    tokensAfter,
    files: proposal.files,
    ...(proposal.instructions !== undefined ? { instructions: proposal.instructions } : {}),
    edited: options.edited,
    auto: false,
    ...(options.model !== undefined ? { model: options.model } : {}),
    handoffFrom: options.source,
  });
  return { log, entry: entry as CompactionEntry };
}
