// Converts an OpenCode session (sst/opencode's `opencode export` JSON: the session's info and its messages with their parts) to pi-format session entries.
import { isObject, settleTimes, str, text, type ConvertedSession, type Json, type PiPart, type TimedMessage } from './piSession';

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const timeOf = (value: unknown, key: string): number | undefined => (isObject(value) ? num(value[key]) : undefined);

/** OpenCode's tools as pi's where they are the same (`filePath` → `path`); others keep their name and arguments. */
function opencodeTool(name: string, input: Json): { name: string; arguments: Json } {
  const path = input.filePath;
  const range = { ...(input.offset !== undefined ? { offset: input.offset } : {}), ...(input.limit !== undefined ? { limit: input.limit } : {}) };
  if (name === 'read') return { name: 'read', arguments: { path, ...range } };
  if (name === 'edit') return { name: 'edit', arguments: { path, oldText: input.oldString, newText: input.newString } };
  if (name === 'write') return { name: 'write', arguments: { path, content: input.content } };
  if (name === 'bash') return { name: 'bash', arguments: { command: input.command } };
  return { name, arguments: input };
}

/** The text of a user message as the model read it: its text parts, the synthetic ones OpenCode adds (an attached file's content) included. */
function requestText(parts: readonly Json[]): string {
  return parts
    .filter((part) => part.type === 'text')
    .map((part) => str(part.text))
    .filter((piece) => piece.trim() !== '')
    .join('\n\n');
}

/** One assistant message: one model call (its text and tool calls), then each tool's output in call order. */
function assistantMessages(info: Json, parts: readonly Json[]): TimedMessage[] {
  const model = str(info.modelID) || 'unknown';
  const created = timeOf(info.time, 'created');
  const content: PiPart[] = [];
  const results: TimedMessage[] = [];
  for (const part of parts) {
    if (part.type === 'text' && str(part.text) !== '') content.push(text(str(part.text)));
    if (part.type !== 'tool') continue;
    const state = isObject(part.state) ? part.state : {};
    const call = opencodeTool(str(part.tool), isObject(state.input) ? state.input : {});
    const id = str(part.callID);
    content.push({ type: 'toolCall', id, ...call });
    if (state.status !== 'completed' && state.status !== 'error') continue;
    const output = state.status === 'error' ? str(state.error) : str(state.output);
    const at = timeOf(state.time, 'end') ?? created;
    results.push({ message: { role: 'toolResult', toolCallId: id, toolName: call.name, content: [text(output)], isError: state.status === 'error', timestamp: 0 }, ...(at !== undefined ? { at } : {}) });
  }
  if (content.length === 0) return [];
  return [{ message: { role: 'assistant', content, model, timestamp: 0 }, ...(created !== undefined ? { at: created } : {}) }, ...results];
}

/**
 * An OpenCode session export: each assistant message is one model call (one step: `step-start` … `step-finish`), its
 * text and tool calls; each tool part's output (or error, which marks it failed) follows its call, verbatim; user
 * messages are requests (their text parts, the synthetic file contents OpenCode adds included). Left out: reasoning,
 * patch, snapshot and step parts; the summary OpenCode wrote when it compacted the session (an assistant message marked
 * `summary`) and the user message that asked for it (a `compaction` part, no text); an assistant message with no text
 * or call (an aborted request): counted as unreadable. Times are the recorded ones (message created, tool finished).
 */
export function fromOpenCode(input: string, start = 0): ConvertedSession {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return { cwd: '', model: 'unknown', start, entries: [], skippedLines: 1 };
  }
  if (!isObject(parsed) || !Array.isArray(parsed.messages)) return { cwd: '', model: 'unknown', start, entries: [], skippedLines: 1 };
  const messages: TimedMessage[] = [];
  let skipped = parsed.messages.length - objects(parsed.messages).length;
  let model = '';
  for (const message of objects(parsed.messages)) {
    const info = isObject(message.info) ? message.info : {};
    const parts = objects(message.parts);
    if (info.role === 'assistant') {
      const read = info.summary === true ? [] : assistantMessages(info, parts);
      if (read.length === 0) skipped++;
      model ||= read.length > 0 ? str(info.modelID) : '';
      messages.push(...read);
      continue;
    }
    const request = requestText(parts);
    const at = timeOf(info.time, 'created');
    if (info.role === 'user' && request !== '') messages.push({ message: { role: 'user', content: [text(request)], timestamp: 0 }, ...(at !== undefined ? { at } : {}) });
    else skipped++;
  }
  const entries = settleTimes(messages, start);
  const sessionInfo = isObject(parsed.info) ? parsed.info : {};
  return { cwd: str(sessionInfo.directory), model: model || 'unknown', start: entries[0]?.message.timestamp ?? start, entries, skippedLines: skipped };
}
