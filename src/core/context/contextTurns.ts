// What a turn of the context is, beside the one definition of what is sent: the turns /drop numbers, the cut plan cuts, the summary's appendix names and the panel lists.
import type { AssistantEntry, MessageEntry, SessionEntry, UserEntry } from '../session/entries';
import { contextSpan } from './contextBuilder';

/** One tool step of a turn: the assistant message that made calls and the results of those calls. */
export interface ContextStep {
  /** "3.2": turn 3, its second tool step. */
  number: string;
  entryIds: string[];
  /** The tools it called, e.g. "read_file, run_command". */
  tools: string;
  dropped: boolean;
}

/**
 * One turn of the context no summary covers: a request of the person and everything up to the next one, in the order
 * sent. The turn a compaction cut into starts with the request that compaction carries (sent right after the summary),
 * so dropping the turn drops its request too; what a drop undo brought back from behind the summary forms turns of its
 * own, before the rest. Dropped messages stay in their turn, marked.
 */
export interface ContextTurn {
  number: number;
  /** The request the turn answers (its first message); undefined for messages continued from before the summary with no request sent. */
  requestEntry: UserEntry | undefined;
  /** The request's first line, shortened; "(continued from before the summary)" when there is none. */
  request: string;
  /** The request is the one the latest compaction carries across its cut (it lies behind the summary). */
  carried: boolean;
  /** Brought back by a drop undo from behind the latest summary (no summary covers it yet). */
  restored: boolean;
  /** Every message of the turn in the order sent, the request first. */
  entries: MessageEntry[];
  entryIds: string[];
  steps: ContextStep[];
  dropped: boolean;
}

function firstLine(text: string): string {
  const line = text.split('\n').map((part) => part.trim()).find((part) => part !== '') ?? '';
  return line.length > 70 ? `${line.slice(0, 69)}…` : line || '(empty)';
}

/** A request of the person (a synthetic user message, such as a restore note, continues the turn it is in). */
export function isRequest(entry: MessageEntry): entry is UserEntry {
  return entry.type === 'user' && !entry.synthetic;
}

/**
 * The results of each assistant message's calls, paired by position like the context builder does (servers that
 * number calls per response reuse ids): a result belongs to the nearest earlier assistant message that made a call
 * with its id.
 */
export function stepsOf(messages: readonly MessageEntry[]): Map<AssistantEntry, MessageEntry[]> {
  const steps = new Map<AssistantEntry, MessageEntry[]>();
  const caller = new Map<string, AssistantEntry>();
  for (const entry of messages) {
    if (entry.type === 'assistant' && entry.toolCalls.length > 0) {
      steps.set(entry, []);
      for (const call of entry.toolCalls) caller.set(call.id, entry);
    }
    if (entry.type !== 'toolResult') continue;
    const owner = caller.get(entry.toolCallId);
    if (owner) steps.get(owner)?.push(entry);
  }
  return steps;
}

/** Splits messages sent one after the other into turns at each request; `lead` heads the first turn when given. */
function split(messages: readonly MessageEntry[], restored: boolean, lead: UserEntry | undefined, turns: ContextTurn[]): void {
  let turn: ContextTurn | undefined;
  const open = (request: UserEntry | undefined, carried: boolean): ContextTurn => {
    const next: ContextTurn = { number: turns.length + 1, requestEntry: request, request: request ? firstLine(request.text) : '(continued from before the summary)', carried, restored, entries: [], entryIds: [], steps: [], dropped: false };
    turns.push(next);
    return next;
  };
  if (lead) turn = open(lead, true);
  for (const entry of lead ? [lead, ...messages] : messages) {
    if (entry !== lead && (isRequest(entry) || !turn)) turn = open(isRequest(entry) ? entry : undefined, false);
    turn?.entries.push(entry);
    turn?.entryIds.push(entry.id);
  }
}

/**
 * The turns of the context no summary covers (what a drop can take out), numbered from 1: what a drop undo brought
 * back from behind the latest compaction, then the turn that compaction cut into (its carried request first) and
 * everything since.
 */
export function contextTurns(path: readonly SessionEntry[]): ContextTurn[] {
  const span = contextSpan(path);
  const turns: ContextTurn[] = [];
  // The carried request heads the turn it was carried for, even when a pin or a drop undo re-sends it anyway.
  split(span.resent.filter((entry) => span.restoredIds.has(entry.id) && entry !== span.carried), true, undefined, turns);
  split(span.kept, false, span.carried, turns);
  const steps = stepsOf(turns.flatMap((turn) => turn.entries));
  for (const turn of turns) {
    for (const entry of turn.entries) {
      const results = entry.type === 'assistant' ? steps.get(entry) : undefined;
      if (entry.type !== 'assistant' || !results) continue;
      const ids = [entry.id, ...results.map((result) => result.id)];
      const tools = [...new Set(entry.toolCalls.map((call) => call.name))].join(', ');
      turn.steps.push({ number: `${turn.number}.${turn.steps.length + 1}`, entryIds: ids, tools, dropped: ids.every((id) => span.dropped.has(id)) });
    }
    turn.dropped = turn.entryIds.every((id) => span.dropped.has(id));
  }
  return turns;
}

/** Each message id of the turns with the turn it belongs to. */
export function turnByEntry(turns: readonly ContextTurn[]): Map<string, ContextTurn> {
  const byEntry = new Map<string, ContextTurn>();
  for (const turn of turns) for (const id of turn.entryIds) byEntry.set(id, turn);
  return byEntry;
}

/** The request `turn` answers while it is still sent (a dropped request is asked no more), else undefined. */
export function sentRequest(turn: ContextTurn | undefined, dropped: ReadonlySet<string>): UserEntry | undefined {
  const request = turn?.requestEntry;
  return request && !dropped.has(request.id) ? request : undefined;
}
