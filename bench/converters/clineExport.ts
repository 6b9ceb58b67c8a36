// Converts a Cline or Roo Code task export (the Markdown "Export task" writes: **User:** / **Assistant:** blocks, XML tool calls) to pi-format session entries.
import { settleTimes, text, type ConvertedSession, type Json, type PiPart, type TimedMessage } from './piSession';

/** The tools Cline and Roo Code describe in their system prompts (a call is `<name>` … `</name>` in the reply text). */
const TOOLS = [
  'execute_command', 'read_file', 'write_to_file', 'replace_in_file', 'apply_diff', 'insert_content', 'search_and_replace', 'search_files',
  'list_files', 'list_code_definition_names', 'codebase_search', 'browser_action', 'use_mcp_tool', 'access_mcp_resource', 'ask_followup_question',
  'attempt_completion', 'plan_mode_respond', 'new_task', 'switch_mode', 'fetch_instructions', 'update_todo_list', 'load_mcp_documentation', 'web_fetch',
];

/** Free-text parameters, which may themselves hold tags: they end at their last closing tag. */
const FREE_TEXT = new Set(['content', 'diff', 'result', 'question', 'response', 'args']);

/** The parameters of a tool call: `<param>value</param>` in order; a value is trimmed of the line breaks around it. */
function toolParams(body: string): Json {
  const params: Json = {};
  let at = 0;
  for (;;) {
    const open = /^\s*<([a-z_]+)>/.exec(body.slice(at));
    if (!open) return params;
    const name = open[1] ?? '';
    const valueStart = at + open[0].length;
    const close = FREE_TEXT.has(name) ? body.lastIndexOf(`</${name}>`) : body.indexOf(`</${name}>`, valueStart);
    if (close < valueStart) {
      // A call cut short (the agent stopped the reply at a tool result): the value runs to the end.
      params[name] = body.slice(valueStart).replace(/^\n/, '').replace(/\s+$/, '');
      return params;
    }
    params[name] = body.slice(valueStart, close).replace(/^\n/, '').replace(/\n$/, '');
    at = close + name.length + 3;
  }
}

const TOOL_OPEN = new RegExp(`<(${TOOLS.join('|')})>`);
const CUT_SHORT = '\n[Response interrupted';

/**
 * The one tool call of a reply, read as the agents' own parsers read it: the first known tool tag anywhere in the
 * text, to that tag's last closing; a call the agent cut short (`[Response interrupted …]` after it) runs to the cut.
 */
function toolCallOf(reply: string): { name: string; params: Json; start: number; end: number } | undefined {
  const open = TOOL_OPEN.exec(reply);
  if (!open) return undefined;
  const name = open[1] ?? '';
  const start = open.index;
  const close = reply.lastIndexOf(`</${name}>`);
  const end = close > start ? close + name.length + 3 : reply.indexOf(CUT_SHORT, start) < 0 ? reply.length : reply.indexOf(CUT_SHORT, start);
  return { name, params: toolParams(reply.slice(start + name.length + 2, close > start ? close : end)), start, end };
}

/** Cline's tools as pi's where they are the same (read, write, bash); others keep their name and parameters. */
function clineTool(name: string, params: Json): { name: string; arguments: Json } {
  if (name === 'read_file' && typeof params.path === 'string') return { name: 'read', arguments: { path: params.path } };
  if (name === 'write_to_file') return { name: 'write', arguments: { path: params.path, content: params.content } };
  if (name === 'execute_command') return { name: 'bash', arguments: { command: params.command } };
  return { name, arguments: params };
}

/** A tool's result opens with `[name …] Result:` (or `[name Result]` in 2024 releases). */
const RESULT_HEAD = new RegExp(`^\\[(${TOOLS.join('|')})(?:\\]| [\\s\\S]*?\\] Result:| Result\\])`);
const FAILED = /^\[[^\n]*?\] Result:\s*(?:The tool execution failed|Error|The user denied this operation)|^\[[^\n]*? Result\]\s*(?:The tool execution failed|Error|The user denied this operation)/;

/** Which comes first in a local date: the month (en-US) or the day. */
type DayOrder = 'm/d' | 'd/m';

/**
 * The request time an `<environment_details>` block records, in milliseconds: `Current time in ISO 8601 UTC format: …`,
 * or the local `# Current Time` line (`28/04/2025, 1:17:27 pm (Asia/Colombo, UTC+5:30)`) in the day order given.
 */
function recordedTime(block: string, order: DayOrder): number | undefined {
  const isoTime = /Current time in ISO 8601 UTC format: (\S+)/.exec(block)?.[1];
  if (isoTime && Number.isFinite(Date.parse(isoTime))) return Date.parse(isoTime);
  const local = /# Current Time\s*\n\s*(\d{1,2})\/(\d{1,2})\/(\d{4}),? (\d{1,2}):(\d{2}):(\d{2})\s*([ap]m)?[^\n]*?UTC([+-])(\d{1,2}):(\d{2})/i.exec(block);
  if (!local) return undefined;
  const [first, second, year, hour, minute, second2, half, sign, offsetHours, offsetMinutes] = local.slice(1);
  const [month, day] = order === 'm/d' ? [Number(first), Number(second)] : [Number(second), Number(first)];
  if (month > 12 || day > 31) return undefined;
  const hours = half ? (Number(hour) % 12) + (half.toLowerCase() === 'pm' ? 12 : 0) : Number(hour);
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  return Date.UTC(Number(year), month - 1, day, hours, Number(minute), Number(second2)) - offset * 60_000;
}

/** The day order that reads every recorded time (month first unless a date only reads day first). */
function dayOrder(blocks: readonly string[]): DayOrder {
  const reads = (order: DayOrder): number => blocks.filter((block) => recordedTime(block, order) !== undefined).length;
  return reads('d/m') > reads('m/d') ? 'd/m' : 'm/d';
}

/**
 * A Cline or Roo Code task export: each **Assistant:** block is one model call (its reply text, `<thinking>` included,
 * as the model wrote it, and its one XML tool call as a pi tool call); the **User:** block after a call is that call's
 * result, verbatim (the `[tool …] Result:` text and the environment details the agent appended); any other **User:**
 * block is a request. Times are those of the environment details (`# Current Time`): a model call takes the time of
 * the request or result before it; an export without them spaces calls 10 s apart from `start` (see settleTimes).
 */
export function fromClineExport(input: string, start = 0): ConvertedSession {
  const blocks = input.split(/^\*\*(User|Assistant):\*\*\s*$/m);
  const order = dayOrder(blocks);
  const messages: TimedMessage[] = [];
  let skipped = blocks[0]?.trim() ? 1 : 0;
  let cwd = '';
  let model = 'unknown';
  let pending: { id: string; name: string } | undefined;
  let requestTime: number | undefined;
  for (let i = 1; i < blocks.length; i += 2) {
    const body = (blocks[i + 1] ?? '').replace(/\n+---\s*$/, '').replace(/^\n+/, '').replace(/\n+$/, '');
    if (blocks[i] === 'Assistant') {
      const call = toolCallOf(body);
      const said = call ? [body.slice(0, call.start).trim(), body.slice(call.end).trim()].filter((part) => part !== '').join('\n\n') : body;
      const parts: PiPart[] = said !== '' ? [text(said)] : [];
      pending = undefined;
      if (call) {
        pending = { id: `call_${messages.length}`, name: call.name };
        parts.push({ type: 'toolCall', id: pending.id, ...clineTool(call.name, call.params) });
      }
      messages.push({ message: { role: 'assistant', content: parts, model, timestamp: 0 }, ...(requestTime !== undefined ? { at: requestTime } : {}) });
      requestTime = undefined;
      continue;
    }
    const at = recordedTime(body, order);
    requestTime = at;
    cwd ||= /# Current (?:Working|Workspace) Directory \(([^)\n]+)\)/.exec(body)?.[1] ?? '';
    model = /<model>([^<\n]+)<\/model>/.exec(body)?.[1] ?? model;
    const result = RESULT_HEAD.exec(body);
    if (pending && result) {
      messages.push({ message: { role: 'toolResult', toolCallId: pending.id, toolName: clineTool(pending.name, {}).name, content: [text(body)], isError: FAILED.test(body), timestamp: 0 }, ...(at !== undefined ? { at } : {}) });
      pending = undefined;
    } else if (body !== '') messages.push({ message: { role: 'user', content: [text(body)], timestamp: 0 }, ...(at !== undefined ? { at } : {}) });
    else skipped++;
  }
  const entries = settleTimes(messages, start);
  return { cwd, model, start: entries[0]?.message.timestamp ?? start, entries, skippedLines: skipped };
}
