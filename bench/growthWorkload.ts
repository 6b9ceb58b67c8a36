// Long synthetic sessions for the growth curves: real texts in turns, with compactions and drops spread through them, and the panel's work on them.
import { writeFileSync } from 'node:fs';
import { measureContext, type CountingDeps, type MeasuredContext } from '../src/core/budget/meter';
import { latestDrop } from '../src/core/agent/dropRunner';
import { contextTurns, droppedParts } from '../src/core/context/contextDrops';
import { formatLine } from '../src/core/session/logParser';
import type { CompactionEntry, SessionEntry } from '../src/core/session/entries';
import { SCHEMA_VERSION } from '../src/core/session/entries';
import { defaultSettings } from '../src/core/settings/settings';
import type { CountCache } from '../src/core/tokens/countCache';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { toBudgetView } from '../src/core/views/budgetView';
import { describeCompaction } from '../src/core/views/compactionDescription';
import { toTurnViews } from '../src/core/views/dropView';
import { toHistoryView } from '../src/core/views/historyView';
import { toUsageView } from '../src/core/views/usageView';
import { importedEntries } from './workloads';

/** Compactions and drops per entry: 400 and 8,000 at 100,000 entries (the sizes), in proportion below. */
export const COMPACTIONS_PER_ENTRY = 400 / 100_000;
export const DROPS_PER_ENTRY = 8_000 / 100_000;

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

/** What the compaction panel computes on every update (compactionReview's getState, less the webview post). */
export function panelUpdate(path: SessionEntry[], deps: CountingDeps): number {
  const measured: MeasuredContext = measureContext(path, deps);
  const budget = toBudgetView({ budget: measured.budget, path, model: deps.counter.modelId, windowSource: 'setting', autoCompaction: true });
  const history = toHistoryView(path, measured.counts);
  const turns = toTurnViews(contextTurns(path));
  const usage = toUsageView(path);
  return budget.used + history.compactions.length + turns.length + (latestDrop(path) ? 1 : 0) + usage.turnCount;
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
