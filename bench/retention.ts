// Retention after a compaction, the same for every policy and without a model: summarized files and requests still in the next context.
import type { ChatMessage } from '../src/core/context/chatMessage';

/** What the workload put into the session so far: the user's requests and the model's tool calls, in order. */
export type HistoryItem = { kind: 'request'; text: string } | { kind: 'calls'; calls: ReadonlyArray<{ name: string; args: string }> };

export interface RetentionCount {
  total: number;
  kept: number;
}

export interface RetentionSample {
  files: RetentionCount;
  requests: RetentionCount;
}

const READ_TOOLS = new Set(['read_file']);
const WRITE_TOOLS = new Set(['write_file', 'edit_file']);

/** The file a read or write call names (its `path` argument), or null. */
export function callPath(name: string, args: string): string | null {
  if (!READ_TOOLS.has(name) && !WRITE_TOOLS.has(name)) return null;
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const path = (parsed as Record<string, unknown>).path;
    return typeof path === 'string' && path.trim() !== '' ? path.trim() : null;
  } catch {
    return null;
  }
}

function callsKey(calls: ReadonlyArray<{ name: string; args: string }>): string {
  return calls.map((call) => `${call.name}\u0000${call.args}`).join('\u0001');
}

/** Fingerprints of the messages sent verbatim: user texts, and assistant messages by their tool calls. */
function verbatim(context: readonly ChatMessage[]): Set<string> {
  const keys = new Set<string>();
  for (const message of context) {
    if (message.role === 'user') keys.add(`u:${message.content}`);
    if (message.role === 'assistant' && message.tool_calls?.length) keys.add(`a:${callsKey(message.tool_calls.map((call) => ({ name: call.function.name, args: call.function.arguments })))}`);
  }
  return keys;
}

function contextText(context: readonly ChatMessage[]): string {
  const parts: string[] = [];
  for (const message of context) {
    if (message.content) parts.push(message.content);
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) parts.push(call.function.arguments);
  }
  return parts.join('\n');
}

/**
 * Of the files read or modified and the user's requests in the part of the history that is no longer sent
 * verbatim (everything summarized so far, cumulatively), the share whose path or exact text is still in the
 * context sent next: in the summary, or in a message kept verbatim.
 */
export function retentionAfter(history: readonly HistoryItem[], next: readonly ChatMessage[]): RetentionSample {
  const sent = verbatim(next);
  const files = new Set<string>();
  const requests = new Set<string>();
  for (const item of history) {
    if (item.kind === 'request' && !sent.has(`u:${item.text}`)) requests.add(item.text);
    if (item.kind === 'calls' && !sent.has(`a:${callsKey(item.calls)}`)) {
      for (const call of item.calls) {
        const path = callPath(call.name, call.args);
        if (path !== null) files.add(path);
      }
    }
  }
  const text = contextText(next);
  const kept = (items: ReadonlySet<string>): number => [...items].filter((item) => text.includes(item)).length;
  return { files: { total: files.size, kept: kept(files) }, requests: { total: requests.size, kept: kept(requests) } };
}

/** Pooled share over every compaction of a run; null when nothing was ever summarized. */
export function pooledShare(samples: readonly RetentionSample[], pick: (sample: RetentionSample) => RetentionCount[] = (s) => [s.files, s.requests]): number | null {
  let total = 0;
  let kept = 0;
  for (const sample of samples) {
    for (const count of pick(sample)) {
      total += count.total;
      kept += count.kept;
    }
  }
  return total === 0 ? null : kept / total;
}
