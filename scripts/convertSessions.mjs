// Converts public recorded agent sessions (mini-swe-agent trajectories, Claude Code session logs) to pi-format session JSONL, gzipped, for the value bench.
// Usage: node scripts/convertSessions.mjs <mini-swe-agent|claude-code> <input file> <output .jsonl.gz> [--source <text>]
// Nothing is trimmed: every request, reply, tool call and tool output is kept verbatim (the model's hidden thinking is left out: no policy sends it back).
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/** pi's tool names and argument names; other tools keep their own (lower-cased) name and arguments. */
const CLAUDE_CODE_TOOLS = {
  Read: (input) => ({ name: 'read', arguments: { path: input.file_path, ...(input.offset !== undefined ? { offset: input.offset } : {}), ...(input.limit !== undefined ? { limit: input.limit } : {}) } }),
  Edit: (input) => ({ name: 'edit', arguments: { path: input.file_path, oldText: input.old_string, newText: input.new_string } }),
  Write: (input) => ({ name: 'write', arguments: { path: input.file_path, content: input.content } }),
  Bash: (input) => ({ name: 'bash', arguments: { command: input.command } }),
};

const iso = (ms) => new Date(ms).toISOString();

function entry(message, at) {
  return { type: 'message', timestamp: iso(at), message: { ...message, timestamp: at } };
}

/** mini-swe-agent (trajectory_format mini-swe-agent-1): every reply holds one ```bash block; the next user message is its output. */
function fromMiniSweAgent(text) {
  const trajectory = JSON.parse(text);
  const messages = trajectory.messages ?? [];
  const out = [];
  const created = messages.map((m) => m.extra?.response?.created).filter((t) => typeof t === 'number');
  let clock = (created[0] ?? 0) * 1000;
  let pending = null;
  let next = 0;
  for (const message of messages) {
    if (message.role === 'system') continue;
    const content = typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => part.text ?? '').join('');
    if (message.role === 'assistant') {
      const at = (message.extra?.response?.created ?? clock / 1000) * 1000;
      clock = Math.max(clock, at);
      const blocks = [...content.matchAll(/```bash\s*\n([\s\S]*?)\n```/g)];
      const block = blocks.length === 1 ? blocks[0] : undefined;
      const thought = block ? content.replace(block[0], '').trim() : content;
      const parts = thought ? [{ type: 'text', text: thought }] : [];
      if (block) {
        pending = `call_${next++}`;
        parts.push({ type: 'toolCall', id: pending, name: 'bash', arguments: { command: block[1] } });
      } else pending = null;
      out.push(entry({ role: 'assistant', content: parts, model: trajectory.info?.config?.model?.model_name ?? 'unknown' }, clock));
    } else if (message.role === 'user') {
      clock += 1;
      if (pending) {
        out.push(entry({ role: 'toolResult', toolCallId: pending, toolName: 'bash', content: [{ type: 'text', text: content }], isError: !/<returncode>0<\/returncode>/.test(content) }, clock));
        pending = null;
      } else out.push(entry({ role: 'user', content: [{ type: 'text', text: content }] }, clock));
    }
  }
  return { cwd: '/testbed', model: trajectory.info?.config?.model?.model_name ?? 'unknown', start: created[0] ? created[0] * 1000 : 0, entries: out };
}

const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (part.type === 'text' ? part.text : part.type === 'image' ? '[image]' : '')).join('') : '');

/** Claude Code's session log: one line per content block; blocks of one reply share message.id. Sub-agent (sidechain) lines are left out. */
function fromClaudeCode(text) {
  const lines = text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
  const out = [];
  const byId = new Map();
  let cwd = '';
  let model = 'unknown';
  for (const line of lines) {
    if (line.isSidechain || (line.type !== 'user' && line.type !== 'assistant')) continue;
    cwd ||= line.cwd ?? '';
    const at = Date.parse(line.timestamp);
    const content = line.message?.content;
    if (line.type === 'assistant') {
      model = line.message.model ?? model;
      const id = line.message.id ?? line.uuid;
      let reply = byId.get(id);
      if (!reply) {
        reply = entry({ role: 'assistant', content: [], model }, at);
        byId.set(id, reply);
        out.push(reply);
      }
      for (const part of Array.isArray(content) ? content : []) {
        if (part.type === 'text' && part.text) reply.message.content.push({ type: 'text', text: part.text });
        if (part.type === 'tool_use') {
          const mapped = CLAUDE_CODE_TOOLS[part.name]?.(part.input ?? {}) ?? { name: part.name.toLowerCase(), arguments: part.input ?? {} };
          reply.message.content.push({ type: 'toolCall', id: part.id, ...mapped });
        }
      }
      continue;
    }
    if (line.isMeta) continue;
    const results = Array.isArray(content) ? content.filter((part) => part.type === 'tool_result') : [];
    for (const result of results) out.push(entry({ role: 'toolResult', toolCallId: result.tool_use_id, content: [{ type: 'text', text: textOf(result.content) }], isError: result.is_error === true }, at));
    const request = Array.isArray(content) ? textOf(content.filter((part) => part.type !== 'tool_result')) : textOf(content);
    if (request.trim() !== '') out.push(entry({ role: 'user', content: [{ type: 'text', text: request }] }, at));
  }
  return { cwd, model, start: out[0]?.message.timestamp ?? 0, entries: out };
}

function main() {
  const [kind, input, output] = process.argv.slice(2);
  const sourceAt = process.argv.indexOf('--source');
  const source = sourceAt > 0 ? process.argv[sourceAt + 1] : input;
  if (!kind || !input || !output) {
    console.error('usage: node scripts/convertSessions.mjs <mini-swe-agent|claude-code> <input> <output.jsonl.gz> [--source <text>]');
    process.exit(2);
  }
  const text = readFileSync(input, 'utf8');
  const converted = kind === 'mini-swe-agent' ? fromMiniSweAgent(text) : kind === 'claude-code' ? fromClaudeCode(text) : null;
  if (!converted) throw new Error(`unknown kind ${kind}`);
  const header = { type: 'session', id: output.replace(/^.*\//, '').replace(/\.jsonl(\.gz)?$/, ''), timestamp: iso(converted.start), cwd: converted.cwd, provider: kind, modelId: converted.model, source };
  const body = [header, ...converted.entries].map((line) => JSON.stringify(line)).join('\n') + '\n';
  writeFileSync(output, output.endsWith('.gz') ? gzipSync(body, { level: 9 }) : body);
  const calls = converted.entries.filter((line) => line.message.role === 'assistant').length;
  console.log(`${output}: ${converted.entries.length} messages, ${calls} model calls`);
}

main();
