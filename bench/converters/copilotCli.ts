// Converts a GitHub Copilot CLI session (its events.jsonl: one event a line, `{type, data, timestamp}`) to pi-format session entries.
import { isObject, settleTimes, str, text, type ConvertedSession, type Json, type PiPart, type TimedMessage } from './piSession';

/** Copilot CLI's tools as pi's where they are the same; others (grep, glob, task, read_agent, sql, …) keep their name and arguments. */
function copilotTool(name: string, args: Json): { name: string; arguments: Json } {
  if (name === 'view') return { name: 'read', arguments: { path: args.path } };
  if (name === 'edit' || name === 'str_replace') return { name: 'edit', arguments: { path: args.path, oldText: args.old_str, newText: args.new_str } };
  if (name === 'create') return { name: 'write', arguments: { path: args.path, content: args.file_text } };
  if (name === 'bash' || name === 'powershell') return { name: 'bash', arguments: { command: args.command } };
  return { name, arguments: args };
}

/** The text a tool result gave the model: `result.content` (the `detailedContent` beside it is the terminal's view), or the error's message. */
function resultText(data: Json): string {
  const result = isObject(data.result) ? data.result : {};
  if (typeof result.content === 'string') return result.content;
  const error = isObject(data.error) ? data.error : {};
  return str(error.message);
}

/**
 * A Copilot CLI session: each `assistant.message` of the main agent is one model call (its content and tool requests;
 * each has its own API call id); each `tool.execution_complete` is that call's result, verbatim (`success: false`
 * marks it failed); a user message (as sent: `transformedContent`, with the time and reminders Copilot CLI adds), a
 * system reminder or a system notification is what the model read next: consecutive ones are one request. Left out:
 * sub-agents (their messages, tool results and prompts carry the `task` call's id, or come from the `agent-…`
 * source; the result the main agent read is kept), reasoning, the system prompt, hook and session events, and the
 * summary Copilot CLI wrote when it compacted the session. Times are the events' recorded timestamps.
 */
export function fromCopilotCli(input: string, start = 0): ConvertedSession {
  const messages: TimedMessage[] = [];
  const toolNames = new Map<string, string>();
  let skipped = 0;
  let cwd = '';
  let model = '';
  let request: { text: string[]; at: number | undefined } | undefined;
  const flush = (): void => {
    if (request && request.text.length > 0) messages.push({ message: { role: 'user', content: [text(request.text.join('\n\n'))], timestamp: 0 }, ...(request.at !== undefined ? { at: request.at } : {}) });
    request = undefined;
  };
  for (const line of input.split('\n')) {
    if (line.trim() === '') continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    if (!isObject(event) || !isObject(event.data)) {
      skipped++;
      continue;
    }
    const data = event.data;
    const parsedAt = Date.parse(str(event.timestamp));
    const at = Number.isFinite(parsedAt) ? parsedAt : undefined;
    const timed = at !== undefined ? { at } : {};
    if (event.type === 'session.start' && isObject(data.context)) cwd ||= str(data.context.cwd);
    if (data.parentToolCallId !== undefined || str(data.source).startsWith('agent-')) continue;
    if (event.type === 'user.message' || event.type === 'system.notification') {
      const said = event.type === 'user.message' ? str(data.transformedContent) || str(data.content) : str(data.content);
      if (said.trim() === '') continue;
      request ??= { text: [], at };
      request.text.push(said);
    } else if (event.type === 'assistant.message') {
      flush();
      const content: PiPart[] = str(data.content) !== '' ? [text(str(data.content))] : [];
      for (const call of Array.isArray(data.toolRequests) ? data.toolRequests.filter(isObject) : []) {
        const mapped = copilotTool(str(call.name), isObject(call.arguments) ? call.arguments : {});
        toolNames.set(str(call.toolCallId), mapped.name);
        content.push({ type: 'toolCall', id: str(call.toolCallId), ...mapped });
      }
      model ||= str(data.model);
      if (content.length > 0) messages.push({ message: { role: 'assistant', content, model: str(data.model) || model || 'unknown', timestamp: 0 }, ...timed });
      else skipped++;
    } else if (event.type === 'tool.execution_complete') {
      const id = str(data.toolCallId);
      messages.push({ message: { role: 'toolResult', toolCallId: id, toolName: toolNames.get(id) ?? '', content: [text(resultText(data))], isError: data.success !== true, timestamp: 0 }, ...timed });
    }
  }
  flush();
  const entries = settleTimes(messages, start);
  return { cwd, model: model || 'unknown', start: entries[0]?.message.timestamp ?? start, entries, skippedLines: skipped };
}
