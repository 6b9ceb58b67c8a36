// The real pi sessions as our entries, and synthetic sessions of any length made by repeating their real entries.
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { importPiSession } from '../src/core/import/piImport';
import type { AssistantEntry, MessageEntry, SessionEntry, ToolResultEntry, UserEntry } from '../src/core/session/entries';
import { isMessageEntry } from '../src/core/session/entries';
import { PI_FIXTURES_DIR } from '../test/support/fixturePaths';

export const FIXTURE_DIR = PI_FIXTURES_DIR;
export const REAL_SESSIONS = ['before-compaction.jsonl', 'large-session.jsonl'] as const;

export function fixturePath(name: string): string {
  return nodePath.join(FIXTURE_DIR, name);
}

export function readFixture(name: string): string {
  return readFileSync(fixturePath(name), 'utf8');
}

/**
 * Imports a real session. `uncapped` keeps every tool output inline, as pi sent it to the model
 * (accuracy replay); otherwise long outputs are capped as a user's import would cap them.
 */
export function importedEntries(name: string, uncapped = false): SessionEntry[] {
  const options = uncapped ? { maxInlineChars: Number.MAX_SAFE_INTEGER } : {};
  return importPiSession(readFixture(name), options).entries;
}

/** Copies an entry under a new id (and new tool-call ids, so repeated calls stay paired with their own results). */
function renamed(entry: MessageEntry, suffix: string, parentId: string | null): MessageEntry {
  const base = { id: `${entry.id}~${suffix}`, parentId };
  switch (entry.type) {
    case 'user':
      return { ...entry, ...base };
    case 'assistant':
      return { ...entry, ...base, toolCalls: entry.toolCalls.map((call) => ({ ...call, id: `${call.id}~${suffix}` })) };
    case 'toolResult':
      return { ...entry, ...base, toolCallId: `${entry.toolCallId}~${suffix}` };
  }
}

/** A linear path of exactly `count` message entries, cycling through the real session's message entries. */
export function synthesizePath(source: readonly SessionEntry[], count: number): MessageEntry[] {
  const messages = source.filter(isMessageEntry);
  if (messages.length === 0) throw new Error('the source session has no message entries');
  const path: MessageEntry[] = [];
  for (let i = 0; i < count; i++) {
    const entry = messages[i % messages.length] as MessageEntry;
    path.push(renamed(entry, String(Math.floor(i / messages.length)), path[path.length - 1]?.id ?? null));
  }
  return path;
}

export interface RealTurn {
  user: UserEntry;
  assistant: AssistantEntry;
  result: ToolResultEntry;
}

/** A real user message, a real assistant message with one tool call, and that call's real result. */
export function realTurn(source: readonly SessionEntry[]): RealTurn {
  const user = source.find((entry): entry is UserEntry => entry.type === 'user' && entry.text.length > 40);
  for (let i = 0; i < source.length; i++) {
    const assistant = source[i];
    if (assistant?.type !== 'assistant' || assistant.toolCalls.length !== 1) continue;
    const call = assistant.toolCalls[0];
    const result = source.find((entry): entry is ToolResultEntry => entry.type === 'toolResult' && entry.toolCallId === call?.id);
    if (user && result && result.content.length > 500) return { user, assistant, result };
  }
  throw new Error('no user message / tool call / tool result triple in the source session');
}

/** The turn appended as fresh entries (new ids, so nothing of it is in the count cache) after `parentId`. */
export function freshTurn(turn: RealTurn, tag: string, parentId: string | null): MessageEntry[] {
  const user = renamed(turn.user, tag, parentId);
  const assistant = renamed(turn.assistant, tag, user.id);
  const result = renamed(turn.result, tag, assistant.id);
  return [user, assistant, result];
}

/** Real tool outputs concatenated until the text is at least `chars` long (the 5 MB tool-output workload). */
export function bigToolOutput(chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    for (const name of REAL_SESSIONS) {
      for (const entry of importedEntries(name, true)) {
        if (entry.type !== 'toolResult') continue;
        parts.push(entry.content);
        length += entry.content.length + 1;
        if (length >= chars) return parts.join('\n').slice(0, chars);
      }
    }
  }
  return parts.join('\n').slice(0, chars);
}
