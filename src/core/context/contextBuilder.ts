// The one definition of what the model sees: a path's context part by part (summary, re-sent, carried, kept; less dropped), and the exact messages sent.
import type { ChatMessage } from './chatMessage';
import type { CompactionEntry, MessageEntry, SessionEntry, UserEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { summaryMessageText } from './contextMarkers';
import { carriedBy } from './carriedRequest';
import { pathMarkers, type PathMarkers, type PlacedCompaction } from './pathMarkers';
import { repairToolPairs, type Candidate, type ContextItem } from './toolPairRepair';

export { SUMMARY_PREFIX, droppedEntryIds, prunePlaceholder, prunedToolResultIds, pinnedEntryIds, summaryMessageText } from './contextMarkers';
export { CANCELLED_RESULT, type ContextItem, type ContextItemKind } from './toolPairRepair';
export { carriedRequest } from './carriedRequest';

export interface BuildContextOptions {
  systemPrompt?: string;
  systemRole?: 'system' | 'developer';
}

export interface BuiltContext {
  messages: ChatMessage[];
  /** items[i].message === messages[i]; says where each message came from. */
  items: ContextItem[];
  /** The compaction the context starts from, or null when the whole path is sent. */
  compactionId: string | null;
}

/** How the path splits at its latest compaction: summarized away, kept verbatim, and the compaction itself. */
export interface PathSplit {
  compaction: CompactionEntry | null;
  summarized: SessionEntry[];
  kept: SessionEntry[];
}

export function splitAtLatestCompaction(path: readonly SessionEntry[]): PathSplit {
  const latest = pathMarkers(path).compaction;
  if (!latest) return { compaction: null, summarized: [], kept: [...path] };
  return new Split(latest.entry, path, latest.cut, [...path.slice(latest.cut, latest.index), ...path.slice(latest.index + 1)]);
}

/**
 * The entries before a compaction's cut, copied from the path when first read (only the cut plan, the summarizer and a
 * hand-off read them; a build does not). A class, not an object literal with a getter: with the literal, every closed
 * session's path stayed alive through minor collections and was promoted, until a full one freed it (measured with
 * --trace-gc-nvp: 108 MB promoted over 300 opens of a 1k-entry session, 0.2 MB with the class; the literal is most
 * likely made in the old generation, which would explain it).
 */
class SummarizedPrefix {
  constructor(
    private readonly path: readonly SessionEntry[],
    private readonly cut: number,
  ) {}

  get summarized(): SessionEntry[] {
    return this.path.slice(0, this.cut);
  }
}

class Split extends SummarizedPrefix implements PathSplit {
  constructor(
    readonly compaction: CompactionEntry,
    path: readonly SessionEntry[],
    cut: number,
    readonly kept: SessionEntry[],
  ) {
    super(path, cut);
  }
}

/**
 * The given messages grown to whole tool exchanges around `chosen`: a chosen result brings its call's assistant
 * message, and a chosen assistant message brings its results, so re-sending never orphans a pair. Results are
 * paired with the nearest earlier assistant message that made a call with their id, by position: servers that
 * number calls per response (llama.cpp, Ollama: "call_0" every time) reuse ids. In the messages' order.
 */
export function wholeExchangesOf(messages: readonly MessageEntry[], chosenIds: ReadonlySet<string>): MessageEntry[] {
  const chosen = new Set<string>(messages.filter((entry) => chosenIds.has(entry.id)).map((entry) => entry.id));
  if (chosen.size === 0) return [];
  const ownerOf = new Map<string, string>();
  const resultsOf = new Map<string, string[]>();
  const latestCaller = new Map<string, string>();
  for (const entry of messages) {
    if (entry.type === 'assistant') for (const call of entry.toolCalls) latestCaller.set(call.id, entry.id);
    if (entry.type !== 'toolResult') continue;
    const owner = latestCaller.get(entry.toolCallId);
    if (owner === undefined) continue;
    ownerOf.set(entry.id, owner);
    const results = resultsOf.get(owner) ?? [];
    results.push(entry.id);
    resultsOf.set(owner, results);
  }
  for (const id of [...chosen]) {
    const owner = ownerOf.get(id);
    if (owner !== undefined) chosen.add(owner);
  }
  for (const id of [...chosen]) for (const result of resultsOf.get(id) ?? []) chosen.add(result);
  return messages.filter((entry) => chosen.has(entry.id));
}

/**
 * Summarized entries no summary covers that are in the context again: a compaction summarized them while they
 * were dropped (its summary names them as dropped, without their content), and a drop undo after it brought them
 * back. They are sent verbatim after the summary until a later compaction summarizes them (its cut plan gives them
 * to the summarizer) or they are dropped again. One walk of the path, each drop costing its own ids: empty when no
 * undo follows a compaction.
 */
export function restoredEntryIds(path: readonly SessionEntry[]): Set<string> {
  return new Set(pathMarkers(path).restored().keys());
}

/**
 * The context of a path before what the person dropped is taken out (`dropped` names it): contextParts sends it less
 * the dropped, and contextTurns (contextTurns.ts) numbers its turns with the dropped ones marked. The one place that
 * decides what a drop undo brought back (`restoredIds`) and which request is carried (`carried`).
 */
export interface ContextSpan {
  compaction: CompactionEntry | null;
  /** Everything the latest compaction summarized away (before its cut), in path order. */
  summarized: SessionEntry[];
  /** Summarized messages re-sent verbatim after the summary (pinned exchanges, what a drop undo brought back), in path order. */
  resent: MessageEntry[];
  /** Of `resent`: what a drop undo brought back (no summary covers it; the next compaction summarizes it). */
  restoredIds: ReadonlySet<string>;
  /** The request the latest compaction carries verbatim after its summary (dropped or not; sent once even when re-sent). */
  carried: UserEntry | undefined;
  /** Messages kept verbatim after the cut and everything since, in path order (dropped or not). */
  kept: MessageEntry[];
  dropped: { has(id: string): boolean };
}

export function contextSpan(path: readonly SessionEntry[]): ContextSpan {
  const markers = pathMarkers(path);
  const latest = markers.compaction;
  const restored = latest ? markers.restored() : new Map<string, number>();
  const kept: MessageEntry[] = [];
  for (let index = latest ? latest.cut : 0; index < path.length; index++) {
    const entry = path[index] as SessionEntry;
    if (index !== latest?.index && isMessageEntry(entry)) kept.push(entry);
  }
  // A compaction inside a turn summarizes the turn's request with its first steps; the model must still
  // see what it was asked, verbatim, in every call until the turn ends, however often the turn compacts.
  return new Span(path, latest, latest ? resentEntries(path, markers, latest, restored) : [], new Set(restored.keys()), carriedBy(path, latest), kept, markers.dropped);
}

class Span extends SummarizedPrefix implements ContextSpan {
  readonly compaction: CompactionEntry | null;

  constructor(
    path: readonly SessionEntry[],
    latest: PlacedCompaction | null,
    readonly resent: MessageEntry[],
    readonly restoredIds: ReadonlySet<string>,
    readonly carried: UserEntry | undefined,
    readonly kept: MessageEntry[],
    readonly dropped: { has(id: string): boolean },
  ) {
    super(path, latest ? latest.cut : 0);
    this.compaction = latest?.entry ?? null;
  }
}

/**
 * What the model sees of a path, part by part: the one definition every consumer reads (the builder that sends it,
 * the cut plan, the summarizer's input, a hand-off, /drop).
 */
export interface ContextParts {
  compaction: CompactionEntry | null;
  /** Everything the latest compaction summarized away (before its cut), in path order. */
  summarized: SessionEntry[];
  /** Summarized messages re-sent verbatim after the summary (pinned exchanges, what a drop undo brought back), in path order. */
  resent: MessageEntry[];
  /** Of `resent`: what a drop undo brought back (no summary covers it; the next compaction summarizes it). */
  restored: MessageEntry[];
  /** The request the latest compaction carries verbatim, when it is not re-sent already. */
  carried: UserEntry | undefined;
  /** Messages kept verbatim after the cut and everything since, in path order. */
  kept: MessageEntry[];
}

/** Positions of a pinned summarized message's whole tool exchange (see wholeExchangesOf), by compaction: its summary fixes them. */
const exchangesByCompaction = new WeakMap<CompactionEntry, Map<SessionEntry, number[]>>();

/** The results an assistant message's calls got before `end`: each paired with the nearest earlier caller of its id. */
function resultsOf(path: readonly SessionEntry[], at: number, end: number, into: number[]): void {
  const entry = path[at];
  if (entry?.type !== 'assistant') return;
  const open = new Set(entry.toolCalls.map((call) => call.id));
  for (let index = at + 1; index < end && open.size > 0; index++) {
    const next = path[index] as SessionEntry;
    if (next.type === 'assistant') for (const call of next.toolCalls) open.delete(call.id);
    else if (next.type === 'toolResult' && open.has(next.toolCallId)) into.push(index);
  }
}

/** The whole exchange of the message at `at` among the messages before `end`, as positions (wholeExchangesOf for one id). */
function exchangeAt(path: readonly SessionEntry[], at: number, end: number): number[] {
  const entry = path[at] as SessionEntry;
  const positions = [at];
  if (entry.type === 'assistant') resultsOf(path, at, end, positions);
  if (entry.type !== 'toolResult') return positions;
  for (let owner = at - 1; owner >= 0; owner--) {
    const candidate = path[owner] as SessionEntry;
    if (candidate.type !== 'assistant' || !candidate.toolCalls.some((call) => call.id === entry.toolCallId)) continue;
    positions.push(owner);
    resultsOf(path, owner, end, positions);
    break;
  }
  return positions;
}

/** Summarized messages re-sent after the summary (pinned exchanges, what an undo brought back), in path order, dropped ones too. */
function resentEntries(path: readonly SessionEntry[], markers: PathMarkers, latest: PlacedCompaction, restored: ReadonlyMap<string, number>): MessageEntry[] {
  let exchanges = exchangesByCompaction.get(latest.entry);
  if (!exchanges) {
    exchanges = new Map();
    exchangesByCompaction.set(latest.entry, exchanges);
  }
  const positions = new Set<number>();
  for (const id of markers.pinnedIds()) {
    const at = markers.pinnedAt(id);
    const entry = at === undefined ? undefined : path[at];
    if (at === undefined || at >= latest.cut || !entry || !isMessageEntry(entry)) continue;
    let known = exchanges.get(entry);
    if (!known) {
      known = exchangeAt(path, at, latest.cut);
      exchanges.set(entry, known);
    }
    for (const position of known) positions.add(position);
  }
  for (const at of restored.values()) if (at < latest.cut && isMessageEntry(path[at] as SessionEntry)) positions.add(at);
  return [...positions].sort((a, b) => a - b).map((at) => path[at] as MessageEntry);
}

/** The parts of the context a path sends: its span less what the person dropped, pinned or not. */
export function contextParts(path: readonly SessionEntry[]): ContextParts {
  const span = contextSpan(path);
  const sent = (entry: MessageEntry): boolean => !span.dropped.has(entry.id);
  const resent = span.resent.filter(sent);
  const carried = span.carried;
  return new Parts(span, resent, resent.filter((entry) => span.restoredIds.has(entry.id)), carried && sent(carried) && !span.resent.includes(carried) ? carried : undefined, span.kept.filter(sent));
}

/** A span's parts less the dropped; `summarized` is the span's, copied when asked for (see SummarizedPrefix). */
class Parts implements ContextParts {
  readonly compaction: CompactionEntry | null;

  constructor(
    private readonly span: ContextSpan,
    readonly resent: MessageEntry[],
    readonly restored: MessageEntry[],
    readonly carried: UserEntry | undefined,
    readonly kept: MessageEntry[],
  ) {
    this.compaction = span.compaction;
  }

  get summarized(): SessionEntry[] {
    return this.span.summarized;
  }
}

/** The message entries a path sends, in the order sent (re-sent and carried ones first, after the summary). */
export function sentEntries(parts: ContextParts): MessageEntry[] {
  return [...parts.resent, ...(parts.carried ? [parts.carried] : []), ...parts.kept];
}

/** The exact Chat Completions messages for the path root→leaf (pure: no I/O, same input same output). */
export function buildContext(path: readonly SessionEntry[], options: BuildContextOptions = {}): BuiltContext {
  const items: ContextItem[] = [];
  if (options.systemPrompt !== undefined) {
    items.push({ message: { role: options.systemRole ?? 'system', content: options.systemPrompt }, kind: 'system' });
  }
  const parts = contextParts(path);
  if (parts.compaction) {
    items.push({ message: { role: 'user', content: summaryMessageText(parts.compaction, parts.restored.length > 0) }, kind: 'summary', entryId: parts.compaction.id });
  }
  const sequence: Candidate[] = [
    ...parts.resent.map((entry): Candidate => ({ entry, kind: 'pinned' })),
    ...(parts.carried ? [{ entry: parts.carried, kind: 'pinned' as const }] : []),
    ...parts.kept.map((entry): Candidate => ({ entry, kind: 'entry' })),
  ];
  // One by one: a spread of a long session's messages would overflow the call stack (about 125k arguments).
  for (const item of repairToolPairs(sequence, pathMarkers(path).pruned)) items.push(item);
  return { messages: items.map((item) => item.message), items, compactionId: parts.compaction?.id ?? null };
}
