// What a person can drop from the context (the turns of contextTurns.ts and their tool steps, each a whole set of tool exchanges), and how drops are named.
import { boundList, type BoundedList } from '../session/boundedList';
import type { AssistantEntry, MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import { stepsOf, type ContextTurn } from './contextTurns';

/** The turns /drop numbers are contextTurns.ts's (the bench's growth workload reads them from here). */
export { contextTurns } from './contextTurns';

/**
 * The given message entries grown to whole tool exchanges, in path order: a result brings the assistant message
 * that called it and that message's other results, and an assistant message brings its results. Ids that are
 * not messages of the path are left out.
 */
export function wholeExchanges(path: readonly SessionEntry[], ids: Iterable<string>): string[] {
  const messages = path.filter(isMessageEntry);
  const steps = stepsOf(messages);
  const ownerOf = new Map<string, AssistantEntry>();
  for (const [owner, results] of steps) for (const result of results) ownerOf.set(result.id, owner);
  const byId = new Map(messages.map((entry) => [entry.id, entry] as const));
  const chosen = new Set<string>();
  for (const id of ids) {
    const entry = byId.get(id);
    if (!entry) continue;
    const owner = entry.type === 'assistant' ? entry : ownerOf.get(entry.id);
    chosen.add(entry.id);
    if (!owner) continue;
    chosen.add(owner.id);
    for (const result of steps.get(owner) ?? []) chosen.add(result.id);
  }
  return messages.filter((entry) => chosen.has(entry.id)).map((entry) => entry.id);
}

/** What a /drop argument names: turns (a range), one tool step, the last turn, or undoing the latest drop. */
export type DropTarget = { kind: 'list' } | { kind: 'undo' } | { kind: 'turns'; from: number; to: number } | { kind: 'step'; number: string };

/** Parses "3", "2-4", "last", "3.2", "undo" or nothing; a message when it names nothing there is. */
export function parseDropTarget(text: string, turns: readonly ContextTurn[]): DropTarget | { error: string } {
  const argument = text.trim().toLowerCase().replace(/[–—]/g, '-');
  if (argument === '' || argument === 'list') return { kind: 'list' };
  if (argument === 'undo') return { kind: 'undo' };
  const count = turns.length;
  const available = count === 0 ? 'there are no turns in the context yet' : `the context has turns 1–${count}`;
  if (argument === 'last') {
    if (count === 0) return { error: `Nothing to drop: ${available}.` };
    return { kind: 'turns', from: count, to: count };
  }
  const step = /^(\d{1,9})\.(\d{1,9})$/.exec(argument);
  if (step) {
    const turn = turns[Number(step[1]) - 1];
    if (!turn) return { error: `There is no turn ${step[1]}: ${available}.` };
    if (!turn.steps.some((candidate) => candidate.number === argument)) {
      return { error: turn.steps.length === 0 ? `Turn ${turn.number} has no tool steps.` : `Turn ${turn.number} has tool steps ${turn.number}.1–${turn.number}.${turn.steps.length}; there is no step ${argument}.` };
    }
    return { kind: 'step', number: argument };
  }
  const range = /^(\d{1,9})(?:\s*-\s*(\d{1,9}))?$/.exec(argument);
  if (!range) return { error: `"${text.trim()}" is not something /drop understands. Use a turn number (3), a range (2-4), a tool step (3.2), "last" or "undo"; /drop alone lists the turns.` };
  const from = Number(range[1]);
  const to = range[2] === undefined ? from : Number(range[2]);
  if (from < 1 || to < from) return { error: `"${text.trim()}" is not a valid range: give the first turn, then a later or equal one (e.g. 2-4).` };
  if (to > count) return { error: `There is no turn ${to}: ${available}.` };
  return { kind: 'turns', from, to };
}

function requestLine(text: string, max = 60): string {
  const line = text.split('\n').map((part) => part.trim()).find((part) => part !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * What the ids are, in words that stay true after the turns are renumbered (the summary names it by this):
 * the requests of the dropped turns, or the tools of a dropped step, and how many messages.
 */
export function describeDropped(path: readonly SessionEntry[], ids: readonly string[]): string {
  const wanted = new Set(ids);
  return describeEntries(path.filter((entry): entry is MessageEntry => isMessageEntry(entry) && wanted.has(entry.id)));
}

function describeEntries(entries: readonly MessageEntry[]): string {
  const requests = entries.flatMap((entry) => (entry.type === 'user' && !entry.synthetic ? [requestLine(entry.text)] : []));
  const messages = `${entries.length} message${entries.length === 1 ? '' : 's'}`;
  if (requests.length === 1) return `the turn "${requests[0]}" (${messages})`;
  if (requests.length > 1) return `${requests.length} turns from "${requests[0]}" to "${requests.at(-1)}" (${messages})`;
  const tools = [...new Set(entries.flatMap((entry) => (entry.type === 'assistant' ? entry.toolCalls.map((call) => call.name) : [])))];
  return tools.length > 0 ? `a ${tools.join(', ')} step (${messages})` : messages;
}

/** Most dropped parts a summary request or appendix is handed (the newest), and the most characters they take. */
export const DROPPED_PARTS_LIMIT = { maxItems: 200, maxChars: 12_000 } as const;

/**
 * What was dropped on purpose among the path's entries up to `end` (an index), one line each, in words that
 * stay true after turns are renumbered: what later summaries say was left out by the person. The newest parts
 * within DROPPED_PARTS_LIMIT, with the count of earlier ones (8,000 drops made a 240k-character list). One pass
 * over the path, then each drop costs its own ids (describing each drop by a filter of the whole path took
 * 5–14 s at 8,000 drops), and only the parts kept are described.
 */
export function droppedParts(path: readonly SessionEntry[], end: number, limit: { maxItems: number; maxChars: number } = DROPPED_PARTS_LIMIT): BoundedList<string> {
  /** Per id a drop names: whether it is dropped now (the last drop or undo wins), its last position, and where it stands as a message. */
  const named = new Map<string, { dropped: boolean; last: number; positions: number[]; seen: number }>();
  for (const entry of path) {
    if (entry.type !== 'drop') continue;
    for (const id of entry.entryIds) {
      const known = named.get(id);
      if (known) known.dropped = entry.dropped;
      else named.set(id, { dropped: entry.dropped, last: Number.POSITIVE_INFINITY, positions: [], seen: -1 });
    }
  }
  path.forEach((entry, at) => {
    const known = named.get(entry.id);
    if (!known) return;
    known.last = at;
    if (isMessageEntry(entry)) known.positions.push(at);
  });
  const parts: number[][] = [];
  path.forEach((entry, at) => {
    if (entry.type !== 'drop' || !entry.dropped) return;
    const positions: number[] = [];
    for (const id of entry.entryIds) {
      const known = named.get(id);
      // Each id once per drop (as a set of them would), only while dropped and at or before `end`.
      if (!known || known.seen === at || !known.dropped || known.last > end) continue;
      known.seen = at;
      positions.push(...known.positions);
    }
    if (positions.length === 0 && !entry.entryIds.some((id) => isStill(named.get(id), end))) return;
    parts.push(positions.sort((a, b) => a - b));
  });
  const describe = (positions: readonly number[]): string => describeEntries(positions.map((position) => path[position] as MessageEntry));
  const kept = boundList(parts, { ...limit, keep: 'last', size: (positions) => describe(positions).length });
  return Object.assign(kept.map(describe), { omitted: kept.omitted });
}

function isStill(known: { dropped: boolean; last: number } | undefined, end: number): boolean {
  return known !== undefined && known.dropped && known.last <= end;
}
