// Turns a sequence of message entries into provider-valid messages: every call answered right after it, no orphans, no empties.
import type { ChatMessage, ChatToolCall } from './chatMessage';
import type { AssistantEntry, MessageEntry, ToolResultEntry } from '../session/entries';
import { prunePlaceholder } from './contextMarkers';
import { userMessage } from './userContent';

export const CANCELLED_RESULT = '[cancelled: the tool call was interrupted before it returned]';

export type ContextItemKind = 'system' | 'summary' | 'entry' | 'pinned' | 'placeholder' | 'synthetic';

export interface ContextItem {
  message: ChatMessage;
  kind: ContextItemKind;
  /** The entry the message came from (for synthetic results: the assistant entry whose call it answers). */
  entryId?: string;
  pruned?: boolean;
}

/** The pruned tool results of a path (a set, or the path's markers). */
export interface PrunedIds {
  has(id: string): boolean;
}

export interface Candidate {
  entry: MessageEntry;
  kind: 'entry' | 'pinned';
}

function toolMessage(result: ToolResultEntry, wireId: string, kind: Candidate['kind'], pruned: PrunedIds): ContextItem {
  if (pruned.has(result.id)) {
    return { message: { role: 'tool', tool_call_id: wireId, content: prunePlaceholder(result) }, kind: 'placeholder', entryId: result.id, pruned: true };
  }
  return { message: { role: 'tool', tool_call_id: wireId, content: result.content }, kind, entryId: result.id };
}

/**
 * Some servers number calls per response (llama.cpp, Ollama: "call_0"), so ids repeat across turns or even
 * within one message. Results are paired by position (the next unused result with that id), and a repeated
 * id gets a unique suffix on the wire, on the call and its result alike, so every provider accepts it.
 */
function wireIdFor(id: string, state: RepairState): string {
  let wireId = id;
  if (state.answered.has(wireId)) {
    // Resume from the last suffix handed out for this id: a session reusing "call_0" on every turn stays linear.
    let n = state.nextSuffix.get(id) ?? 2;
    while (state.answered.has(`${id}_${n}`)) n++;
    wireId = `${id}_${n}`;
    state.nextSuffix.set(id, n + 1);
  }
  state.answered.add(wireId);
  return wireId;
}

interface RepairState {
  /** Result positions by call id, in order, and how far each list has been used up. */
  results: Map<string, number[]>;
  cursors: Map<string, number>;
  consumed: Set<number>;
  answered: Set<string>;
  nextSuffix: Map<string, number>;
  pruned: PrunedIds;
}

/** The next result for `id` after position `at` that no call took yet; calls come in order, so a cursor suffices. */
function nextResult(state: RepairState, id: string, at: number): number | undefined {
  const list = state.results.get(id);
  if (!list) return undefined;
  let cursor = state.cursors.get(id) ?? 0;
  while (cursor < list.length && ((list[cursor] ?? 0) <= at || state.consumed.has(list[cursor] ?? 0))) cursor++;
  state.cursors.set(id, cursor);
  return list[cursor];
}

function resultIndex(sequence: readonly Candidate[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  sequence.forEach((candidate, i) => {
    if (candidate.entry.type !== 'toolResult') return;
    const list = index.get(candidate.entry.toolCallId) ?? [];
    list.push(i);
    index.set(candidate.entry.toolCallId, list);
  });
  return index;
}

function assistantItems(
  entry: AssistantEntry,
  at: number,
  kind: Candidate['kind'],
  sequence: readonly Candidate[],
  state: RepairState,
): ContextItem[] {
  const calls = entry.toolCalls.map((call) => ({ call, wireId: wireIdFor(call.id, state) }));
  const hasText = entry.text.trim() !== '';
  if (!hasText && calls.length === 0) return [];
  const toolCalls: ChatToolCall[] = calls.map(({ call, wireId }) => ({ id: wireId, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  const items: ContextItem[] = [
    { message: { role: 'assistant', content: hasText ? entry.text : null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }, kind, entryId: entry.id },
  ];
  for (const { call, wireId } of calls) {
    const next = nextResult(state, call.id, at);
    const candidate = next === undefined ? undefined : sequence[next];
    if (next !== undefined && candidate?.entry.type === 'toolResult') {
      state.consumed.add(next);
      items.push(toolMessage(candidate.entry, wireId, candidate.kind, state.pruned));
    } else {
      items.push({ message: { role: 'tool', tool_call_id: wireId, content: CANCELLED_RESULT }, kind: 'synthetic', entryId: entry.id });
    }
  }
  return items;
}

/** Orders results after their calls (in call order), drops orphaned results and empty assistants, answers unanswered calls. */
export function repairToolPairs(sequence: readonly Candidate[], pruned: PrunedIds): ContextItem[] {
  const state: RepairState = { results: resultIndex(sequence), cursors: new Map(), consumed: new Set(), answered: new Set(), nextSuffix: new Map(), pruned };
  const items: ContextItem[] = [];
  sequence.forEach((candidate, i) => {
    if (state.consumed.has(i)) return;
    const entry = candidate.entry;
    if (entry.type === 'user') items.push({ message: userMessage(entry), kind: candidate.kind, entryId: entry.id });
    else if (entry.type === 'assistant') for (const item of assistantItems(entry, i, candidate.kind, sequence, state)) items.push(item);
    // A toolResult reached here has no call before it in the context: sending it would be rejected, so it is left out.
  });
  return items;
}
