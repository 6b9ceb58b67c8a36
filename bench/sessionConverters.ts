// Converts public recorded agent sessions (mini-swe-agent trajectories, Claude Code logs, Codex CLI rollouts; Gemini CLI histories, Cline / Roo Code task exports, Crush, OpenCode and Copilot CLI sessions in bench/converters/) to pi-format session entries for the value bench.
// Nothing is trimmed: every request, reply, tool call and tool output is kept verbatim; left out are the model's hidden
// thinking (no policy sends it back) and the recording agent's own compaction summaries (each policy compacts on its own).

import { fromClineExport } from './converters/clineExport';
import { fromCopilotCli } from './converters/copilotCli';
import { fromCrush } from './converters/crush';
import { fromGeminiCli } from './converters/geminiCli';
import { fromOpenCode } from './converters/opencode';
import { entry, isObject, iso, str, text, type ConvertedSession, type Json, type PiEntry, type PiMessage, type PiPart } from './converters/piSession';

export type { ConvertedSession, PiEntry, PiMessage, PiPart, PiToolCall } from './converters/piSession';
export { fromClineExport, fromCopilotCli, fromCrush, fromGeminiCli, fromOpenCode };

/** The recording agent of each format; the session header's `provider` names it (and the file name begins with it). */
export const SESSION_KINDS = ['mini-swe-agent', 'claude-code', 'codex', 'gemini-cli', 'cline', 'roo-code', 'crush', 'opencode', 'copilot-cli'] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

/** JSON lines, with the count of lines that are not JSON objects. */
function jsonLines(input: string): { lines: Json[]; skipped: number } {
  const lines: Json[] = [];
  let skipped = 0;
  for (const line of input.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (isObject(parsed)) lines.push(parsed);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { lines, skipped };
}

/** Times as recorded, in milliseconds; a line without a readable time takes the previous line's. */
function recordedClock(): (timestamp: unknown) => number {
  let last = 0;
  return (timestamp) => {
    const at = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
    if (Number.isFinite(at)) last = at;
    return last;
  };
}

const codexText = (content: unknown): string => (Array.isArray(content) ? (content as Json[]).map((part) => str(part.text)).join('') : str(content));

/** mini-swe-agent (trajectory_format mini-swe-agent-1): every reply holds one ```bash block; the next user message is its output. */
export function fromMiniSweAgent(input: string): ConvertedSession {
  const trajectory = JSON.parse(input) as Json;
  const messages = Array.isArray(trajectory.messages) ? (trajectory.messages as Json[]) : [];
  const info = isObject(trajectory.info) ? trajectory.info : {};
  const config = isObject(info.config) ? info.config : {};
  const model = str(isObject(config.model) ? config.model.model_name : undefined) || 'unknown';
  const createdOf = (message: Json): number | undefined => {
    const extra = isObject(message.extra) ? message.extra : {};
    const response = isObject(extra.response) ? extra.response : {};
    return typeof response.created === 'number' ? response.created : undefined;
  };
  const created = messages.map(createdOf).filter((t): t is number => t !== undefined);
  const entries: PiEntry[] = [];
  let clock = (created[0] ?? 0) * 1000;
  let pending: string | null = null;
  let next = 0;
  for (const message of messages) {
    if (message.role === 'system') continue;
    const content = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? (message.content as Json[]).map((part) => str(part.text)).join('') : '';
    if (message.role === 'assistant') {
      clock = Math.max(clock, (createdOf(message) ?? clock / 1000) * 1000);
      const blocks = [...content.matchAll(/```bash\s*\n([\s\S]*?)\n```/g)];
      const block = blocks.length === 1 ? blocks[0] : undefined;
      const thought = block ? content.replace(block[0], '').trim() : content;
      const parts: PiPart[] = thought ? [text(thought)] : [];
      if (block) {
        pending = `call_${next++}`;
        parts.push({ type: 'toolCall', id: pending, name: 'bash', arguments: { command: block[1] ?? '' } });
      } else pending = null;
      entries.push(entry({ role: 'assistant', content: parts, model, timestamp: clock }));
    } else if (message.role === 'user') {
      clock += 1;
      if (pending) {
        entries.push(entry({ role: 'toolResult', toolCallId: pending, toolName: 'bash', content: [text(content)], isError: !/<returncode>0<\/returncode>/.test(content), timestamp: clock }));
        pending = null;
      } else entries.push(entry({ role: 'user', content: [text(content)], timestamp: clock }));
    }
  }
  return { cwd: '/testbed', model, start: (created[0] ?? 0) * 1000, entries, skippedLines: 0 };
}

/** Claude Code's tools renamed to pi's (with `file_path` → `path`); others keep their name, lower-cased, and arguments. */
function claudeCodeTool(name: string, input: Json): { name: string; arguments: Json } {
  const path = input.file_path;
  if (name === 'Read') return { name: 'read', arguments: { path, ...(input.offset !== undefined ? { offset: input.offset } : {}), ...(input.limit !== undefined ? { limit: input.limit } : {}) } };
  if (name === 'Edit') return { name: 'edit', arguments: { path, oldText: input.old_string, newText: input.new_string } };
  if (name === 'Write') return { name: 'write', arguments: { path, content: input.content } };
  if (name === 'Bash') return { name: 'bash', arguments: { command: input.command } };
  return { name: name.toLowerCase(), arguments: input };
}

const claudeText = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? (content as Json[]).map((part) => (part.type === 'text' ? str(part.text) : part.type === 'image' ? '[image]' : '')).join('')
      : '';

/**
 * Claude Code's session log: one line per content block; blocks of one reply share message.id (one model call).
 * Left out: sub-agent (sidechain) lines, meta lines, and the summary Claude Code wrote when it compacted.
 */
export function fromClaudeCode(input: string): ConvertedSession {
  const { lines, skipped } = jsonLines(input);
  const entries: PiEntry[] = [];
  const replies = new Map<string, PiEntry>();
  const clock = recordedClock();
  let cwd = '';
  let model = 'unknown';
  for (const line of lines) {
    const at = clock(line.timestamp);
    if (line.isSidechain === true || (line.type !== 'user' && line.type !== 'assistant')) continue;
    cwd ||= str(line.cwd);
    const message = isObject(line.message) ? line.message : {};
    const content = message.content;
    if (line.type === 'assistant') {
      model = str(message.model) || model;
      const id = str(message.id) || str(line.uuid);
      let reply = replies.get(id);
      if (!reply) {
        reply = entry({ role: 'assistant', content: [], model, timestamp: at });
        replies.set(id, reply);
        entries.push(reply);
      }
      for (const part of Array.isArray(content) ? (content as Json[]) : []) {
        if (part.type === 'text' && str(part.text)) reply.message.content.push(text(str(part.text)));
        if (part.type === 'tool_use') reply.message.content.push({ type: 'toolCall', id: str(part.id), ...claudeCodeTool(str(part.name), isObject(part.input) ? part.input : {}) });
      }
      continue;
    }
    if (line.isMeta === true || line.isCompactSummary === true) continue;
    const blocks = Array.isArray(content) ? (content as Json[]) : [];
    for (const result of blocks.filter((part) => part.type === 'tool_result')) {
      entries.push(entry({ role: 'toolResult', toolCallId: str(result.tool_use_id), content: [text(claudeText(result.content))], isError: result.is_error === true, timestamp: at }));
    }
    const request = Array.isArray(content) ? claudeText(blocks.filter((part) => part.type !== 'tool_result')) : claudeText(content);
    if (request.trim() !== '') entries.push(entry({ role: 'user', content: [text(request)], timestamp: at }));
  }
  return { cwd, model, start: entries[0]?.message.timestamp ?? 0, entries, skippedLines: skipped };
}

/** A Codex shell command (argv) as pi's bash call, or as apply_patch when Codex ran its patch tool through the shell. */
function codexShell(argv: unknown): { name: string; arguments: Json } {
  const words = Array.isArray(argv) ? argv.map((word) => (typeof word === 'string' ? word : JSON.stringify(word))) : [str(argv)];
  if (words[0] === 'apply_patch' && words.length === 2) return { name: 'apply_patch', arguments: { patch: words[1] } };
  const script = words.length === 3 && /(^|\/)(ba|z)?sh$/.test(words[0] ?? '') && /^-l?c$/.test(words[1] ?? '') ? words[2] : words.join(' ');
  return { name: 'bash', arguments: { command: script } };
}

/** A Codex tool call as pi's: the shell tools become bash (or apply_patch), apply_patch keeps its patch text; others keep their arguments. */
function codexTool(payload: Json): { name: string; arguments: Json } {
  if (payload.type === 'local_shell_call') return codexShell(isObject(payload.action) ? payload.action.command : []);
  const name = str(payload.name);
  if (payload.type === 'custom_tool_call') return name === 'apply_patch' ? { name, arguments: { patch: str(payload.input) } } : { name, arguments: { input: str(payload.input) } };
  let args: Json = {};
  try {
    const parsed: unknown = JSON.parse(str(payload.arguments) || '{}');
    if (isObject(parsed)) args = parsed;
  } catch {
    args = { raw: str(payload.arguments) };
  }
  if (name === 'shell') return codexShell(args.command);
  if (name === 'shell_command') return { name: 'bash', arguments: { command: str(args.command) } };
  if (name === 'exec_command') return { name: 'bash', arguments: { command: str(args.cmd) } };
  if (name === 'apply_patch' && typeof args.input === 'string') return { name, arguments: { patch: args.input } };
  return { name, arguments: args };
}

/** A tool output as the model saw it, and whether the command failed (a recorded non-zero exit code). */
function codexOutput(output: unknown): { text: string; isError: boolean } {
  const content = isObject(output) ? output.content : output;
  const body = typeof content === 'string' ? content : Array.isArray(content) ? (content as Json[]).map((part) => str(part.text)).join('') : JSON.stringify(content ?? '');
  let exit: number | undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed) && isObject(parsed.metadata) && typeof parsed.metadata.exit_code === 'number') exit = parsed.metadata.exit_code;
  } catch {
    const match = /^Exit code: (-?\d+)/m.exec(body.slice(0, 200));
    if (match) exit = Number(match[1]);
  }
  const failed = isObject(output) && output.success === false;
  return { text: body, isError: failed || (exit !== undefined && exit !== 0) };
}

/** The model's output items of a Codex turn; consecutive ones are one model call (one response). */
const CODEX_OUTPUTS = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);

/**
 * A Codex CLI rollout (`rollout-*.jsonl`): response items in order. Consecutive user and developer messages are one
 * request; consecutive model outputs (text, tool calls, hidden reasoning) are one model call; each tool output follows
 * its call. Left out: event messages (they repeat the items), ghost snapshots, and the summary Codex wrote when it compacted.
 */
export function fromCodex(input: string): ConvertedSession {
  const { lines, skipped } = jsonLines(input);
  const entries: PiEntry[] = [];
  const toolNames = new Map<string, string>();
  const clock = recordedClock();
  let cwd = '';
  let model = 'unknown';
  let reply: Extract<PiMessage, { role: 'assistant' }> | null = null;
  let request: Extract<PiMessage, { role: 'user' }> | null = null;
  for (const line of lines) {
    const at = clock(line.timestamp);
    const payload = isObject(line.payload) ? line.payload : {};
    if (line.type === 'session_meta') cwd ||= str(payload.cwd);
    if (line.type === 'turn_context') model = str(payload.model) || model;
    // Current rollouts wrap each item as {type: 'response_item', payload}; the first releases wrote the bare item.
    const item = line.type === 'response_item' ? payload : line.payload === undefined && line.record_type === undefined ? line : {};
    if (typeof item.type !== 'string') continue;
    const role = str(item.role);
    if (CODEX_OUTPUTS.has(item.type) && (item.type !== 'message' || role === 'assistant')) {
      request = null;
      if (!reply) {
        reply = { role: 'assistant', content: [], model, timestamp: at };
        entries.push(entry(reply));
      }
      if (item.type === 'message') {
        const said = codexText(item.content);
        if (said) reply.content.push(text(said));
      } else if (item.type !== 'reasoning' && item.type !== 'web_search_call') {
        const id = str(item.call_id) || str(item.id);
        const tool = codexTool(item);
        toolNames.set(id, tool.name);
        reply.content.push({ type: 'toolCall', id, ...tool });
      }
      continue;
    }
    reply = null;
    if (item.type === 'message' && (role === 'user' || role === 'developer')) {
      const said = codexText(item.content);
      if (said === '') continue;
      if (request) request.content.push(text(`\n\n${said}`));
      else {
        request = { role: 'user', content: [text(said)], timestamp: at };
        entries.push(entry(request));
      }
      continue;
    }
    request = null;
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output' || item.type === 'local_shell_call_output') {
      const id = str(item.call_id);
      const output = codexOutput(item.output);
      const toolName = toolNames.get(id);
      entries.push(entry({ role: 'toolResult', toolCallId: id, ...(toolName ? { toolName } : {}), content: [text(output.text)], isError: output.isError, timestamp: at }));
    }
  }
  return { cwd, model, start: entries[0]?.message.timestamp ?? 0, entries, skippedLines: skipped };
}

/** `start` (milliseconds) places a session whose format records no times: its calls are 10 s apart from there. */
export function convertSession(kind: SessionKind, input: string, start = 0): ConvertedSession {
  if (kind === 'mini-swe-agent') return fromMiniSweAgent(input);
  if (kind === 'claude-code') return fromClaudeCode(input);
  if (kind === 'gemini-cli') return fromGeminiCli(input, start);
  if (kind === 'cline' || kind === 'roo-code') return fromClineExport(input, start);
  if (kind === 'crush') return fromCrush(input, start);
  if (kind === 'opencode') return fromOpenCode(input, start);
  if (kind === 'copilot-cli') return fromCopilotCli(input, start);
  return fromCodex(input);
}

/** The pi-format session file: a `session` header naming the source, then one entry a line. */
export function piSessionJsonl(id: string, kind: SessionKind, converted: ConvertedSession, source: string): string {
  const header = { type: 'session', id, timestamp: iso(converted.start), cwd: converted.cwd, provider: kind, modelId: converted.model, source };
  return `${[header, ...converted.entries].map((line) => JSON.stringify(line)).join('\n')}\n`;
}
