// Test helper: reads the real pi-coding-agent fixture sessions into a root→leaf SessionEntry path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEntry, ToolCall } from '../../src/core/session/entries';
import { PI_FIXTURES_DIR } from './fixturePaths';

export const FIXTURE_DIR = PI_FIXTURES_DIR;
export const FIXTURE_FILES = ['before-compaction.jsonl', 'large-session.jsonl'] as const;

/** pi's tool names mapped to this agent's. */
const TOOL_NAMES: Record<string, string> = {
  read: 'read_file',
  write: 'write_file',
  edit: 'edit_file',
  bash: 'run_command',
  ls: 'list_dir',
  find: 'find_files',
  grep: 'search_text',
};

type Json = Record<string, unknown>;

function parts(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter((part): part is Json => typeof part === 'object' && part !== null) : [];
}

function text(content: unknown, type = 'text'): string {
  return parts(content)
    .filter((part) => part.type === type)
    .map((part) => str(part[type === 'thinking' ? 'thinking' : 'text']))
    .join('\n');
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function messageEntry(message: Json, base: { id: string; parentId: string | null; timestamp: string }): SessionEntry | null {
  switch (message.role) {
    case 'user':
      return { ...base, type: 'user', text: text(message.content) };
    case 'bashExecution':
      return { ...base, type: 'user', text: `$ ${String(message.command)}\n${str(message.output)}` };
    case 'toolResult':
      return {
        ...base,
        type: 'toolResult',
        toolCallId: String(message.toolCallId),
        toolName: TOOL_NAMES[String(message.toolName)] ?? String(message.toolName),
        isError: message.isError === true,
        content: text(message.content),
      };
    case 'assistant': {
      const usage = (message.usage ?? {}) as Json;
      const toolCalls: ToolCall[] = parts(message.content)
        .filter((part) => part.type === 'toolCall')
        .map((part) => ({
          id: String(part.id),
          name: TOOL_NAMES[String(part.name)] ?? String(part.name),
          arguments: JSON.stringify(part.arguments ?? {}),
        }));
      const promptTokens = num(usage.input) + num(usage.cacheRead) + num(usage.cacheWrite);
      return {
        ...base,
        type: 'assistant',
        text: text(message.content),
        toolCalls,
        reasoning: text(message.content, 'thinking') || undefined,
        model: typeof message.model === 'string' ? message.model : undefined,
        usage: promptTokens > 0 ? { promptTokens, completionTokens: num(usage.output) } : undefined,
      };
    }
    default:
      return null;
  }
}

/** One fixture as a linear path (ids `e<line>`), compactions pointing at their first kept line. */
export function readFixturePath(file: string): SessionEntry[] {
  const lines = readFileSync(join(FIXTURE_DIR, file), 'utf8').split('\n').filter((line) => line.trim().length > 0);
  const path: SessionEntry[] = [];
  const idOfLine = new Map<number, string>();
  lines.forEach((line, index) => {
    const record = JSON.parse(line) as Json;
    const base = { id: `e${index}`, parentId: path.at(-1)?.id ?? null, timestamp: str(record.timestamp) };
    let entry: SessionEntry | null = null;
    if (record.type === 'message') entry = messageEntry(record.message as Json, base);
    else if (record.type === 'model_change') entry = { ...base, type: 'modelChange', model: String(record.modelId) };
    else if (record.type === 'compaction') {
      let kept: string | null = null;
      for (let at = num(record.firstKeptEntryIndex); at < index && kept === null; at++) kept = idOfLine.get(at) ?? null;
      entry = {
        ...base,
        type: 'compaction',
        summary: String(record.summary),
        firstKeptEntryId: kept,
        tokensBefore: num(record.tokensBefore),
        tokensAfter: 0,
        files: { read: [], modified: [] },
        edited: false,
        auto: true,
      };
    }
    if (entry) {
      idOfLine.set(index, entry.id);
      path.push(entry);
    }
  });
  return path;
}
