// Servers that number tool calls per response ("call_0") repeat ids across turns: nothing may be dropped.
import { describe, expect, it } from 'vitest';
import { buildContext } from '../../src/core/context/contextBuilder';
import type { SessionEntry } from '../../src/core/session/entries';
import { validateChatMessages } from '../support/validateChatMessages';

let counter = 0;
const at = (): string => new Date(Date.UTC(2026, 0, 1, 0, 0, counter++)).toISOString();
function chain(entries: Array<Record<string, unknown>>): SessionEntry[] {
  let parentId: string | null = null;
  return entries.map((fields, index) => {
    const entry = { id: `e${index}`, parentId, timestamp: at(), ...fields } as unknown as SessionEntry;
    parentId = entry.id;
    return entry;
  });
}
const call = (id: string, name = 'read_file', args = '{"path":"a.txt"}') => ({ id, name, arguments: args });
const result = (toolCallId: string, content: string) => ({ type: 'toolResult', toolCallId, toolName: 'read_file', isError: false, content });

describe('repeated tool-call ids', () => {
  it('keeps every exchange of every turn when each response reuses call_0', () => {
    const path = chain([
      { type: 'user', text: 'first' },
      { type: 'assistant', text: '', toolCalls: [call('call_0')] },
      result('call_0', 'one'),
      { type: 'assistant', text: 'done', toolCalls: [] },
      { type: 'user', text: 'second' },
      { type: 'assistant', text: '', toolCalls: [call('call_0')] },
      result('call_0', 'two'),
      { type: 'assistant', text: '', toolCalls: [call('call_0')] },
      result('call_0', 'three'),
    ]);
    const { messages } = buildContext(path);
    expect(validateChatMessages(messages)).toEqual([]);
    const tools = messages.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.content)).toEqual(['one', 'two', 'three']);
    const ids = messages.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []).map((c) => c.id) : []));
    expect(new Set(ids).size).toBe(3);
    expect(tools.map((message) => message.tool_call_id)).toEqual(ids);
  });

  it('pairs duplicate ids inside one message by position', () => {
    const path = chain([
      { type: 'user', text: 'go' },
      { type: 'assistant', text: '', toolCalls: [call('x', 'read_file', '{"path":"a"}'), call('x', 'read_file', '{"path":"b"}')] },
      result('x', 'A'),
      result('x', 'B'),
    ]);
    const { messages } = buildContext(path);
    expect(validateChatMessages(messages)).toEqual([]);
    expect(messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual(['A', 'B']);
  });
});
