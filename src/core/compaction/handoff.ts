// Hand-off: a summary of everything the model sees, reviewed like a compaction, seeding a new session that keeps the pins verbatim.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { contextParts, sentEntries, wholeExchangesOf } from '../context/contextBuilder';
import { droppedEntryIds, pinnedEntryIds } from '../context/contextMarkers';
import { contextTurns, sentRequest } from '../context/contextTurns';
import type { CompactionEntry, FileLedger, HandoffSource, MessageEntry, SessionEntry, UserEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import type { NewEntry } from '../session/newEntry';
import { newEntryId } from '../session/newEntry';
import { onlyMarkedSince, summaryInstructions, type CompactionLog, type CompactionProposal, type ProposeOptions } from './compaction';
import { fixedOf, pinnedAmong, sizes, withPinsNow } from './contextAfter';
import { HANDOFF_CUT } from './cutPlan';

/**
 * What the new session starts with: the summary, then every pinned exchange the source sends, copied verbatim and
 * pinned again (the summary's appendix says they are "kept verbatim after this summary": here they are). Read from
 * the source as the context builder sends it, at the moment it is asked (a pin made during the review counts).
 */
interface Seed {
  summary: string;
  files: FileLedger;
  /** Source messages copied after the summary, whole tool exchanges, in the order sent. */
  copies: MessageEntry[];
  /** Of those, the ones the person pinned. */
  pinned: ReadonlySet<string>;
}

function seedOf(path: readonly SessionEntry[], summary: string, files: FileLedger): Seed {
  const pinned = pinnedEntryIds(path);
  return { summary, files, copies: wholeExchangesOf(sentEntries(contextParts(path)), pinned), pinned };
}

/**
 * The copy's own fields: what the model saw, without what belongs to the source session (its usage reports, the
 * file changes its checkpoints restore, the sub-task it ran): the new session neither bills nor restores them.
 */
function copyFields(entry: MessageEntry): NewEntry {
  switch (entry.type) {
    case 'user':
      return { type: 'user', text: entry.text, ...(entry.attachments ? { attachments: entry.attachments } : {}), ...(entry.images ? { images: entry.images } : {}), ...(entry.synthetic ? { synthetic: true } : {}) };
    case 'assistant':
      return { type: 'assistant', text: entry.text, toolCalls: entry.toolCalls, ...(entry.model !== undefined ? { model: entry.model } : {}), ...(entry.error !== undefined ? { error: entry.error } : {}) };
    case 'toolResult':
      return { type: 'toolResult', toolCallId: entry.toolCallId, toolName: entry.toolName, isError: entry.isError, content: entry.content, ...(entry.blob ? { blob: entry.blob } : {}) };
  }
}

type SeedFields = Pick<CompactionEntry, 'tokensBefore' | 'tokensAfter' | 'edited' | 'auto'> & Partial<Pick<CompactionEntry, 'instructions' | 'model' | 'handoffFrom'>>;

/**
 * The seed's entries in the order written. Each copy carries its source entry's id and each pin names it by that
 * id: a draft measured on its own may keep them, the new log gives the copies ids of their own (startHandoff).
 */
function seedEntries(seed: Seed, fields: SeedFields): NewEntry[] {
  const compaction: NewEntry = { type: 'compaction', summary: seed.summary, firstKeptEntryId: null, carriedRequestId: null, files: seed.files, ...fields };
  const copies = seed.copies.map((entry): NewEntry => ({ ...copyFields(entry), id: entry.id }));
  const pins = seed.copies.filter((entry) => seed.pinned.has(entry.id)).map((entry): NewEntry => ({ type: 'pin', targetId: entry.id, pinned: true }));
  return [compaction, ...copies, ...pins];
}

/** What the new session's first call would send with this seed, measured by the meter (never written). */
function measureSeed(seed: Seed, deps: CountingDeps): MeasuredContext {
  const entries = seedEntries(seed, { tokensBefore: 0, tokensAfter: 0, edited: false, auto: false });
  const path: SessionEntry[] = [];
  for (const fields of entries) {
    const { id, timestamp, ...rest } = fields;
    const entry: SessionEntry = { ...rest, id: id ?? `draft-${newEntryId()}`, parentId: path.at(-1)?.id ?? null, timestamp: timestamp ?? new Date().toISOString() };
    path.push(entry);
  }
  return measureContext(path, deps);
}

/** The request of the newest turn whose request is still sent: what a hand-off's summary names as the last one. */
function latestRequest(path: readonly SessionEntry[]): UserEntry | undefined {
  const dropped = droppedEntryIds(path);
  const turns = contextTurns(path);
  for (let at = turns.length - 1; at >= 0; at--) {
    const request = sentRequest(turns[at], dropped);
    if (request) return request;
  }
  return undefined;
}

/**
 * Summarizes everything the model sees now, as the context builder sends it (the previous summary, pinned
 * exchanges, the carried request and every message since, less what was dropped) for a new session. Null when
 * the context holds no message yet. Nothing is written.
 */
export async function proposeHandoff(log: CompactionLog, options: ProposeOptions): Promise<CompactionProposal | null> {
  const path = log.path();
  const measured = measureContext(path, options);
  const entries = sentEntries(contextParts(path));
  if (entries.length === 0) return null;
  const pinned = pinnedAmong(path, entries);
  const lastRequest = latestRequest(path);
  const result = await options.summarize({
    cut: HANDOFF_CUT,
    entries,
    turnPrefixEntries: [],
    pinned,
    lastRequest: lastRequest ?? null,
    instructions: summaryInstructions(options.settings.compaction.customInstructions, options.instructions),
    maxSummaryTokens: measured.thresholds.summaryTokens,
    signal: options.signal,
  });
  const seed = seedOf(path, result.summary, result.files);
  const after = measureSeed(seed, options);
  const byId = new Map(path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  return {
    ...result,
    ...HANDOFF_CUT,
    handoff: true,
    replaces: { entryIds: entries.map((entry) => entry.id), turnPrefixEntryIds: [], lastRequestId: lastRequest?.id ?? null },
    pinnedIds: pinned.map((entry) => entry.id),
    summarized: sizes(entries.map((entry) => entry.id), byId, measured),
    kept: sizes(seed.copies.map((entry) => entry.id), byId, measured),
    tokensBefore: measured.budget.used,
    tokensAfter: after.budget.used,
    fixedTokens: fixedOf(after),
    keptTokens: after.budget.breakdown.messages + after.budget.breakdown.toolResults,
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
 * Starts the new session: its first entry is the reviewed summary, linked back to the source, followed by the
 * source's pinned exchanges as they are now (pins made while the summary waited count), pinned again. The source is
 * not written to (it stays whole). Refuses when the source moved on since the proposal or the summary is empty.
 * Run it with the source held (SessionEngine.exclusive, or inside the request that proposed it).
 */
export async function startHandoff(source: CompactionLog, proposal: CompactionProposal, options: HandoffOptions): Promise<{ log: CompactionLog; entry: CompactionEntry }> {
  if (!proposal.handoff) throw new Error('That proposal is a compaction, not a hand-off.');
  if (!onlyMarkedSince(source, proposal.leafId)) throw new Error('The session changed since this hand-off summary was made; nothing was started. Hand off again.');
  if (options.summary.trim() === '') throw new Error('The hand-off summary is empty; no session was started.');
  // Its appendix names the pins the new session starts with: those of now (one made or removed during the review counts).
  const path = source.path();
  const summary = withPinsNow(options.summary, proposal.pinnedIds, pinnedAmong(path, sentEntries(contextParts(path))), options.deps);
  const seed = seedOf(path, summary, proposal.files);
  const tokensAfter = measureSeed(seed, options.deps).budget.used;
  const log = await options.create(options.source);
  const written = new Map<string, string>();
  const fields = {
    tokensBefore: proposal.tokensBefore,
    tokensAfter,
    edited: options.edited,
    auto: false,
    ...(proposal.instructions !== undefined ? { instructions: proposal.instructions } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    handoffFrom: options.source,
  };
  let entry: CompactionEntry | undefined;
  // Each copy is written before the pin that names it: the pin reads the id the new log gave the copy.
  for (const next of seedEntries(seed, fields)) {
    const { id: sourceId, ...rest } = next;
    const appended = await log.append(rest.type === 'pin' ? { ...rest, targetId: written.get(rest.targetId) ?? rest.targetId } : rest);
    if (appended.type === 'compaction') entry = appended;
    if (sourceId !== undefined) written.set(sourceId, appended.id);
  }
  if (!entry) throw new Error('The new session was created without its summary.');
  return { log, entry };
}
