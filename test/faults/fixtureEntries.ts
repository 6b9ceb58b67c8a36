// Realistic entries for the fault families: the real pi fixture's messages converted to session entry fields.
import { readFileSync } from 'node:fs';
import type { NewEntry } from '../../src/core/session/newEntry';
import type { StopReason, ToolCall } from '../../src/core/session/entries';
import { PI_FIXTURES_DIR } from '../support/fixturePaths';

export const FIXTURE_FILE = `${PI_FIXTURES_DIR}/large-session.jsonl`;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function partsText(content: unknown, kind: 'text' | 'thinking'): string {
  if (typeof content === 'string') return kind === 'text' ? content : '';
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is Json => isObject(part) && part.type === kind)
    .map((part) => (typeof part[kind] === 'string' ? part[kind] : ''))
    .join('\n');
}

function toolCallsOf(content: unknown): ToolCall[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter((part): part is Json => isObject(part) && part.type === 'toolCall')
    .map((part) => ({
      id: String(part.id),
      name: String(part.name),
      arguments: typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {}),
    }));
}

function stopReasonOf(value: unknown, hasCalls: boolean): StopReason {
  if (value === 'aborted' || value === 'error' || value === 'length') return value;
  return hasCalls ? 'toolCalls' : 'stop';
}

function convert(message: Json): NewEntry | undefined {
  if (message.role === 'user') return { type: 'user', text: partsText(message.content, 'text') };
  if (message.role === 'assistant') {
    const toolCalls = toolCallsOf(message.content);
    const reasoning = partsText(message.content, 'thinking');
    return {
      type: 'assistant',
      text: partsText(message.content, 'text'),
      toolCalls,
      ...(reasoning ? { reasoning } : {}),
      ...(typeof message.model === 'string' ? { model: message.model } : {}),
      stopReason: stopReasonOf(message.stopReason, toolCalls.length > 0),
    };
  }
  if (message.role === 'toolResult') {
    return {
      type: 'toolResult',
      toolCallId: String(message.toolCallId),
      toolName: String(message.toolName),
      isError: message.isError === true,
      content: partsText(message.content, 'text'),
    };
  }
  return undefined;
}

let cache: NewEntry[] | undefined;

/** Every user/assistant/toolResult message of the fixture, in file order, as entry fields without ids. */
export function fixtureEntries(): NewEntry[] {
  if (cache) return cache;
  const entries: NewEntry[] = [];
  for (const line of readFileSync(FIXTURE_FILE, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as unknown;
    if (!isObject(record) || record.type !== 'message' || !isObject(record.message)) continue;
    const entry = convert(record.message);
    if (entry) entries.push(entry);
  }
  cache = entries;
  return entries;
}
