// Long synthetic sessions for the growth curves: real texts in turns, with compactions and drops spread through them, and the panel's work on them.
import { appendFileSync, writeFileSync } from 'node:fs';
import { measureContext, type CountingDeps, type MeasuredContext } from '../src/core/budget/meter';
import { droppedParts } from '../src/core/context/contextDrops';
import { buildContext } from '../src/core/context/contextBuilder';
import { formatLine } from '../src/core/session/logParser';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../src/core/session/entries';
import type { SessionTree } from '../src/core/session/sessionTree';
import { SCHEMA_VERSION } from '../src/core/session/entries';
import { defaultSettings } from '../src/core/settings/settings';
import type { CountCache } from '../src/core/tokens/countCache';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { toBudgetView } from '../src/core/views/budgetView';
import { describeCompaction } from '../src/core/views/compactionDescription';
import { pathViews } from '../src/core/views/pathViews';
import { sessionUsage } from '../src/core/views/usageView';
import { freshTurn, importedEntries, type RealTurn } from './workloads';

/** Compactions, drops and pins per entry: 400, 8,000 and 100 at 100,000 entries (the sizes), in proportion below. */
export const COMPACTIONS_PER_ENTRY = 400 / 100_000;
export const DROPS_PER_ENTRY = 8_000 / 100_000;
export const PINS_PER_ENTRY = 100 / 100_000;

interface Texts {
  requests: string[];
  outputs: string[];
  replies: string[];
}

/** Real texts from a recorded session, shortened so 100,000 entries stay a file of tens of megabytes. */
function realTexts(): Texts {
  const entries = importedEntries('large-session.jsonl');
  const texts: Texts = { requests: [], outputs: [], replies: [] };
  for (const entry of entries) {
    if (entry.type === 'user' && entry.text.trim()) texts.requests.push(entry.text.slice(0, 300));
    if (entry.type === 'toolResult' && entry.content.trim()) texts.outputs.push(entry.content.slice(0, 800));
    if (entry.type === 'assistant' && entry.text.trim()) texts.replies.push(entry.text.slice(0, 300));
  }
  return texts;
}

function timestamp(index: number): string {
  return new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString();
}

/**
 * A linear session of exactly `size` entries: turns of a request, a tool call, its result and a reply, with a
 * compaction (keeping the last three turns) and drops (each the turn before it) spread evenly through it.
 */
export function growthSession(size: number): SessionEntry[] {
  const texts = realTexts();
  let compactions = 0;
  let drops = 0;
  let pins = 0;
  const entries: SessionEntry[] = [];
  const turnStarts: number[] = [];
  let turn = 0;
  const push = (entry: Omit<SessionEntry, 'parentId' | 'timestamp'>): void => {
    const index = entries.length;
    entries.push({ ...entry, parentId: entries.at(-1)?.id ?? null, timestamp: timestamp(index) } as SessionEntry);
  };
  const pick = (list: readonly string[], at: number): string => list[at % list.length] ?? `text ${at}`;
  while (entries.length < size) {
    const index = entries.length;
    // The last turns stay free of markers and whole, so a new turn follows a finished one, as it would in use.
    if (size - index < 4) {
      push({ type: 'assistant', id: `r${turn}-${index}`, text: pick(texts.replies, index), toolCalls: [] } as Omit<SessionEntry, 'parentId' | 'timestamp'>);
      continue;
    }
    const markersAllowed = size - index > 12;
    if (markersAllowed && compactions < Math.floor(index * COMPACTIONS_PER_ENTRY) && turnStarts.length > 3) {
      compactions++;
      const kept = entries[turnStarts[turnStarts.length - 3] as number] as SessionEntry;
      const compaction: Omit<CompactionEntry, 'parentId' | 'timestamp'> = {
        type: 'compaction',
        id: `k${index}`,
        summary: `## Goal\n${pick(texts.requests, index)}\n\n## Progress\n${pick(texts.replies, index)}\n${pick(texts.outputs, index).slice(0, 400)}`,
        firstKeptEntryId: kept.id,
        tokensBefore: 150_000,
        tokensAfter: 20_000,
        files: { read: [], modified: [] },
        edited: false,
        auto: true,
      };
      push(compaction);
      continue;
    }
    if (markersAllowed && drops < Math.floor(index * DROPS_PER_ENTRY) && turnStarts.length > 0) {
      drops++;
      const from = turnStarts[turnStarts.length - 1] as number;
      const ids = entries.slice(from).filter((entry) => entry.type === 'user' || entry.type === 'assistant' || entry.type === 'toolResult').map((entry) => entry.id);
      push({ type: 'drop', id: `d${index}`, entryIds: ids, dropped: true, label: `turn ${turn}`, tokens: 500 } as Omit<SessionEntry, 'parentId' | 'timestamp'>);
      continue;
    }
    if (markersAllowed && pins < Math.floor(index * PINS_PER_ENTRY) && turnStarts.length > 1) {
      pins++;
      // The request two turns back, so later compactions summarize it and re-send it verbatim.
      const target = entries[turnStarts[turnStarts.length - 2] as number] as SessionEntry;
      push({ type: 'pin', id: `p${index}`, targetId: target.id, pinned: true } as Omit<SessionEntry, 'parentId' | 'timestamp'>);
      continue;
    }
    turnStarts.push(index);
    const call = `call_${turn}`;
    push({ type: 'user', id: `u${turn}`, text: pick(texts.requests, turn) } as Omit<SessionEntry, 'parentId' | 'timestamp'>);
    push({ type: 'assistant', id: `a${turn}`, text: '', toolCalls: [{ id: call, name: 'read_file', arguments: `{"path":"src/file${turn % 97}.ts"}` }] } as Omit<SessionEntry, 'parentId' | 'timestamp'>);
    push({ type: 'toolResult', id: `t${turn}`, toolCallId: call, toolName: 'read_file', isError: false, content: pick(texts.outputs, turn) } as Omit<SessionEntry, 'parentId' | 'timestamp'>);
    push({ type: 'assistant', id: `r${turn}`, text: pick(texts.replies, turn), toolCalls: [] } as Omit<SessionEntry, 'parentId' | 'timestamp'>);
    turn++;
  }
  return entries;
}

/** Writes the session as our log file (header line, then one entry per line). */
export function writeSession(file: string, entries: readonly SessionEntry[]): void {
  const header = { type: 'session' as const, version: SCHEMA_VERSION, id: 'growth', timestamp: timestamp(0) };
  writeFileSync(file, [header, ...entries].map(formatLine).join(''));
}

export function growthDeps(counter: TokenCounter, cache: CountCache): CountingDeps {
  return { counter, cache, settings: defaultSettings(), contextWindow: 200_000, systemRole: 'system', tools: [] };
}

/** What the compaction panel computes on every update (compactionReview's getState), and the JSON its post sends. */
export function panelUpdate(path: readonly SessionEntry[], deps: CountingDeps): number {
  const measured: MeasuredContext = measureContext(path, deps);
  const budget = toBudgetView({ budget: measured.budget, path, model: deps.counter.modelId, windowSource: 'setting', autoCompaction: true });
  const views = pathViews(path, measured.counts);
  return JSON.stringify({ type: 'state', state: { session: { id: 'growth', title: 'growth' }, budget, ...views } }).length;
}

/** What the status item computes after every appended entry (extension.ts: the session's budget view and its usage). */
export function statusItemUpdate(path: readonly SessionEntry[], deps: CountingDeps): number {
  const measured = measureContext(path, deps);
  const budget = toBudgetView({ budget: measured.budget, path, model: deps.counter.modelId, windowSource: 'setting', autoCompaction: true });
  return budget.used + sessionUsage(path).calls;
}

/** The session a whole turn runs in: its tree, counts and files (the log and the count cache are appended to). */
export interface TurnSession {
  tree: SessionTree;
  baseLeaf: string;
  deps: CountingDeps;
  logFile: string;
  counts: CountCache;
  countsFile: string;
}

/** The entries of one turn forked from the base leaf: a request, a tool call and its result, a drop of that step, the reply. */
export function wholeTurnEntries(turn: RealTurn, tag: string, parentId: string): SessionEntry[] {
  const [user, assistant, result] = freshTurn(turn, tag, parentId) as [MessageEntry, MessageEntry, MessageEntry];
  const drop = { type: 'drop', id: `drop~${tag}`, parentId: result.id, timestamp: result.timestamp, entryIds: [assistant.id, result.id], dropped: true, label: 'step', tokens: 100 } as SessionEntry;
  const reply = { type: 'assistant', id: `reply~${tag}`, parentId: drop.id, timestamp: result.timestamp, text: 'Dropped that step: the file was not the one we need.', toolCalls: [] } as SessionEntry;
  return [user, assistant, result, drop, reply];
}

/**
 * Sets the session's current path back to the base leaf before a turn (untimed): each sample's turn forks from the
 * base so every sample sees the same length, and the tree copies the path on that switch of branch. In the extension
 * a turn extends the current path in place (SessionTree.pathTo), so the copy is the bench's, not the turn's.
 */
export function setBackToBase(session: TurnSession): void {
  session.tree.pathTo(session.baseLeaf);
}

/**
 * One whole turn as the extension runs it, with the panel open: every appended entry is written to the log and
 * updates the status item and the panel; each model call (after the request and after the tool result) builds the
 * context it sends and measures it; the request ends by saving the counts it made (appended, never the whole cache).
 */
export function wholeTurn(session: TurnSession, entries: readonly SessionEntry[]): number {
  let work = 0;
  for (const entry of entries) {
    session.tree.add(entry);
    appendFileSync(session.logFile, formatLine(entry));
    const path = session.tree.pathTo(entry.id);
    work += statusItemUpdate(path, session.deps);
    work += panelUpdate(path, session.deps);
    if (entry.type === 'user' || entry.type === 'toolResult') {
      work += buildContext(path, { systemPrompt: 'You are a coding agent.' }).messages.length;
      work += measureContext(path, session.deps).budget.used;
    }
  }
  const added = session.counts.takeUnsaved();
  if (added) appendFileSync(session.countsFile, `\n${JSON.stringify(added)}`);
  return work;
}

/** The Restore Pre-Compaction picker's list: every compaction on the branch, newest first, described. */
export function restorePicker(path: readonly SessionEntry[]): number {
  const compactions = path.filter((entry): entry is CompactionEntry => entry.type === 'compaction');
  return [...compactions].reverse().map((entry) => describeCompaction(path, entry, (tokens) => `${Math.round(tokens / 1000)}k`)).length;
}

/** What a compaction at the leaf would list as dropped on purpose (the summarizer's droppedParts). */
export function droppedAtCompaction(path: readonly SessionEntry[]): number {
  return droppedParts(path, path.length - 1).length;
}
