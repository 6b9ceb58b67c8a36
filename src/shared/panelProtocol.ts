// The typed message protocol between the compaction panel's webview and the extension host, with the inbound validator.

import type { Notice, PanelState, TurnUsageView, UsageFigures, UsageView } from './panelViewModels';

/** Webview → host. Every inbound message goes through parseWebviewMessage before dispatch. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'pruneNow' }
  | { type: 'compactNow'; instructions: string }
  | { type: 'handOff'; instructions: string }
  | { type: 'previewDrop'; target: string }
  | { type: 'confirmDrop'; previewId: string }
  | { type: 'cancelDrop'; previewId: string }
  | { type: 'applySummary'; proposalId: string; summary: string; edited: boolean }
  | { type: 'regenerate'; proposalId: string; instructions: string }
  | { type: 'cancelProposal'; proposalId: string }
  | { type: 'restoreCompaction'; compactionId: string }
  | { type: 'restoreCheckpoint'; entryId: string }
  | { type: 'openSession'; sessionId: string }
  | { type: 'pin'; entryId: string }
  | { type: 'unpin'; entryId: string }
  | { type: 'countTokens'; requestId: number; text: string }
  | { type: 'openSettings' };

export type WebviewMessageType = WebviewMessage['type'];

/** Host → webview. `tokenCount` answers the `countTokens` request with the same requestId. */
export type HostMessage =
  | { type: 'state'; state: PanelState }
  | { type: 'tokenCount'; requestId: number; tokens: number }
  | { type: 'notice'; notice: Notice };

/** Limits on inbound strings: a summary can be long, ids and instructions cannot. */
export const PROTOCOL_LIMITS = {
  idChars: 200,
  instructionsChars: 20_000,
  textChars: 2_000_000,
} as const;

export type ParseResult = WebviewMessage | { error: string };

type FieldKind = 'id' | 'instructions' | 'text' | 'boolean' | 'requestId';

/** The fields each message kind carries; extra or missing fields are rejected. */
const MESSAGE_FIELDS: { [K in WebviewMessageType]: Record<string, FieldKind> } = {
  ready: {},
  pruneNow: {},
  compactNow: { instructions: 'instructions' },
  handOff: { instructions: 'instructions' },
  previewDrop: { target: 'id' },
  confirmDrop: { previewId: 'id' },
  cancelDrop: { previewId: 'id' },
  applySummary: { proposalId: 'id', summary: 'text', edited: 'boolean' },
  regenerate: { proposalId: 'id', instructions: 'instructions' },
  cancelProposal: { proposalId: 'id' },
  restoreCompaction: { compactionId: 'id' },
  restoreCheckpoint: { entryId: 'id' },
  openSession: { sessionId: 'id' },
  pin: { entryId: 'id' },
  unpin: { entryId: 'id' },
  countTokens: { requestId: 'requestId', text: 'text' },
  openSettings: {},
};

function isMessageType(value: unknown): value is WebviewMessageType {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(MESSAGE_FIELDS, value);
}

function checkField(kind: FieldKind, value: unknown): string | undefined {
  switch (kind) {
    case 'id':
      if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
      return value.length > PROTOCOL_LIMITS.idChars ? `is longer than ${PROTOCOL_LIMITS.idChars} characters` : undefined;
    case 'instructions':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > PROTOCOL_LIMITS.instructionsChars
        ? `is longer than ${PROTOCOL_LIMITS.instructionsChars} characters`
        : undefined;
    case 'text':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > PROTOCOL_LIMITS.textChars ? `is longer than ${PROTOCOL_LIMITS.textChars} characters` : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'requestId':
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a non-negative integer';
  }
}

/**
 * Validates a message posted by the webview. Anything unknown or malformed yields {error} with a reason
 * fit for a log line; the caller must never dispatch it.
 */
export function parseWebviewMessage(raw: unknown): ParseResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: 'message is not an object' };
  const record = raw as Record<string, unknown>;
  const type = record['type'];
  if (!isMessageType(type)) {
    return { error: `unknown message type ${typeof type === 'string' ? JSON.stringify(type.slice(0, 50)) : typeof type}` };
  }
  const fields = MESSAGE_FIELDS[type];
  for (const key of Object.keys(record)) {
    if (key !== 'type' && !Object.prototype.hasOwnProperty.call(fields, key)) {
      return { error: `${type}: unexpected field ${JSON.stringify(key.slice(0, 50))}` };
    }
  }
  for (const [key, kind] of Object.entries(fields)) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) return { error: `${type}: missing field ${key}` };
    const problem = checkField(kind, record[key]);
    if (problem !== undefined) return { error: `${type}: ${key} ${problem}` };
  }
  // Every field was checked against MESSAGE_FIELDS[type] above, so the record has the shape of that member.
  return { ...record } as WebviewMessage;
}

export function isParseError(result: ParseResult): result is { error: string } {
  return 'error' in result;
}

const USAGE_NUMBERS = ['calls', 'unreportedCalls', 'promptTokens', 'cachedTokens', 'outputTokens', 'pricedCalls', 'cost', 'summaries', 'summarizedTokens'] as const;

function isUsageFigures(value: unknown): value is UsageFigures {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return USAGE_NUMBERS.every((key) => typeof record[key] === 'number' && Number.isFinite(record[key]));
}

function isTurnUsage(value: unknown): value is TurnUsageView {
  if (!isUsageFigures(value)) return false;
  const record = value as unknown as Record<string, unknown>;
  return typeof record['turn'] === 'number' && typeof record['request'] === 'string' && typeof record['when'] === 'string';
}

/** Shape check of a state's usage section (a saved state from an older version may lack or differ in it). */
export function isUsageView(value: unknown): value is UsageView {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const turns = record['recentTurns'];
  return isUsageFigures(record['session']) && Array.isArray(turns) && turns.every(isTurnUsage) && typeof record['turnCount'] === 'number';
}

function isPanelStateShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const usage = (value as Record<string, unknown>)['usage'];
  return usage === undefined || isUsageView(usage);
}

/** A light shape check for the webview side: the host is trusted, but a stale or foreign message is ignored. */
export function isHostMessage(raw: unknown): raw is HostMessage {
  if (typeof raw !== 'object' || raw === null) return false;
  const record = raw as Record<string, unknown>;
  switch (record['type']) {
    case 'state':
      return isPanelStateShape(record['state']);
    case 'tokenCount':
      return typeof record['requestId'] === 'number' && typeof record['tokens'] === 'number';
    case 'notice':
      return typeof record['notice'] === 'object' && record['notice'] !== null;
    default:
      return false;
  }
}
