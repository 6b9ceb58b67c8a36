// The webview → host validator: every valid kind passes unchanged, malformed and unknown messages are rejected with a reason.
import { describe, expect, it } from 'vitest';
import { PROTOCOL_LIMITS, isHostMessage, isParseError, isUsageView, parseWebviewMessage } from '../../src/shared/panelProtocol';
import type { WebviewMessage } from '../../src/shared/panelProtocol';

const valid: WebviewMessage[] = [
  { type: 'ready' },
  { type: 'pruneNow' },
  { type: 'compactNow', instructions: '' },
  { type: 'compactNow', instructions: 'keep file paths' },
  { type: 'handOff', instructions: '' },
  { type: 'previewDrop', target: '2-4' },
  { type: 'confirmDrop', previewId: 'drop-1' },
  { type: 'cancelDrop', previewId: 'drop-1' },
  { type: 'applySummary', proposalId: 'p1', summary: '## Goal\n…', edited: true },
  { type: 'applySummary', proposalId: 'p1', summary: '', edited: false },
  { type: 'regenerate', proposalId: 'p1', instructions: 'shorter' },
  { type: 'cancelProposal', proposalId: 'p1' },
  { type: 'restoreCompaction', compactionId: 'c1' },
  { type: 'pin', entryId: 'e1' },
  { type: 'unpin', entryId: 'e1' },
  { type: 'countTokens', requestId: 0, text: 'hello' },
  { type: 'countTokens', requestId: 42, text: '' },
  { type: 'openSettings' },
];

const malformed: Array<[string, unknown]> = [
  ['undefined', undefined],
  ['null', null],
  ['a string', 'ready'],
  ['a number', 7],
  ['an array', [{ type: 'ready' }]],
  ['no type', {}],
  ['numeric type', { type: 1 }],
  ['unknown type', { type: 'deleteSession' }],
  ['type with different case', { type: 'Ready' }],
  ['inherited member name as type', { type: 'toString' }],
  ['prototype key as type', { type: '__proto__' }],
  ['extra field on ready', { type: 'ready', extra: true }],
  ['__proto__ own field', JSON.parse('{"type":"pruneNow","__proto__":{"polluted":1}}')],
  ['compactNow without instructions', { type: 'compactNow' }],
  ['previewDrop with an empty target', { type: 'previewDrop', target: '' }],
  ['previewDrop with a numeric target', { type: 'previewDrop', target: 3 }],
  ['confirmDrop without an id', { type: 'confirmDrop' }],
  ['compactNow with numeric instructions', { type: 'compactNow', instructions: 5 }],
  ['instructions too long', { type: 'compactNow', instructions: 'x'.repeat(PROTOCOL_LIMITS.instructionsChars + 1) }],
  ['applySummary without edited', { type: 'applySummary', proposalId: 'p', summary: 's' }],
  ['applySummary with string edited', { type: 'applySummary', proposalId: 'p', summary: 's', edited: 'true' }],
  ['applySummary with empty proposalId', { type: 'applySummary', proposalId: '', summary: 's', edited: false }],
  ['applySummary with object summary', { type: 'applySummary', proposalId: 'p', summary: { text: 's' }, edited: false }],
  ['summary too long', { type: 'applySummary', proposalId: 'p', summary: 'x'.repeat(PROTOCOL_LIMITS.textChars + 1), edited: false }],
  ['regenerate without proposalId', { type: 'regenerate', instructions: '' }],
  ['cancelProposal with numeric id', { type: 'cancelProposal', proposalId: 3 }],
  ['id too long', { type: 'cancelProposal', proposalId: 'x'.repeat(PROTOCOL_LIMITS.idChars + 1) }],
  ['restoreCompaction with the wrong field name', { type: 'restoreCompaction', entryId: 'c1' }],
  ['pin with null id', { type: 'pin', entryId: null }],
  ['unpin with an array id', { type: 'unpin', entryId: ['e1'] }],
  ['countTokens with string requestId', { type: 'countTokens', requestId: '1', text: 'a' }],
  ['countTokens with negative requestId', { type: 'countTokens', requestId: -1, text: 'a' }],
  ['countTokens with fractional requestId', { type: 'countTokens', requestId: 1.5, text: 'a' }],
  ['countTokens with NaN requestId', { type: 'countTokens', requestId: Number.NaN, text: 'a' }],
  ['countTokens with unsafe requestId', { type: 'countTokens', requestId: 2 ** 60, text: 'a' }],
  ['countTokens without text', { type: 'countTokens', requestId: 1 }],
  ['openSettings with a payload', { type: 'openSettings', section: 'x' }],
  ['a host message echoed back', { type: 'state', state: {} }],
];

describe('parseWebviewMessage', () => {
  it.each(valid.map((message) => [message.type, message] as const))('accepts a valid %s message unchanged', (_type, message) => {
    const parsed = parseWebviewMessage(JSON.parse(JSON.stringify(message)));
    expect(parsed).toEqual(message);
  });

  it('covers every message kind with at least one valid example', () => {
    const kinds = new Set(valid.map((message) => message.type));
    expect(kinds.size).toBe(15);
  });

  it(`rejects ${malformed.length} malformed or unknown messages with a reason`, () => {
    expect(malformed.length).toBeGreaterThanOrEqual(20);
    for (const [label, raw] of malformed) {
      const parsed = parseWebviewMessage(raw);
      expect(isParseError(parsed), label).toBe(true);
      if (isParseError(parsed)) expect(parsed.error.length, label).toBeGreaterThan(5);
    }
  });

  it('names the bad field in the error', () => {
    expect(parseWebviewMessage({ type: 'applySummary', proposalId: 'p', summary: 's', edited: 1 })).toEqual({
      error: 'applySummary: edited must be true or false',
    });
    expect(parseWebviewMessage({ type: 'pin' })).toEqual({ error: 'pin: missing field entryId' });
  });

  it('keeps a hostile unknown type short in the error', () => {
    const parsed = parseWebviewMessage({ type: 'x'.repeat(10_000) });
    expect(isParseError(parsed) && parsed.error.length < 100).toBe(true);
  });

  it('returns a copy, so later changes to the raw object do not reach the handler', () => {
    const raw = { type: 'pin', entryId: 'e1' };
    const parsed = parseWebviewMessage(raw);
    raw.entryId = 'changed';
    expect(parsed).toEqual({ type: 'pin', entryId: 'e1' });
  });
});

describe('isHostMessage', () => {
  it('accepts the three host kinds and rejects others', () => {
    expect(isHostMessage({ type: 'state', state: { history: { compactions: [], pins: [], pinnable: [] } } })).toBe(true);
    expect(isHostMessage({ type: 'tokenCount', requestId: 1, tokens: 10 })).toBe(true);
    expect(isHostMessage({ type: 'notice', notice: { level: 'info', text: 'x' } })).toBe(true);
    expect(isHostMessage({ type: 'state' })).toBe(false);
    expect(isHostMessage({ type: 'tokenCount', requestId: '1', tokens: 10 })).toBe(false);
    expect(isHostMessage({ type: 'ready' })).toBe(false);
    expect(isHostMessage(null)).toBe(false);
  });
});

describe('usage in the panel state', () => {
  const figures = { calls: 2, unreportedCalls: 0, promptTokens: 10, cachedTokens: 5, outputTokens: 1, pricedCalls: 1, cost: 0.5, summaries: 0, summarizedTokens: 0 };
  const usage = { session: figures, recentTurns: [{ ...figures, turn: 1, request: 'fix it', when: '2025-01-01T00:00:00Z' }], turnCount: 1 };
  const history = { compactions: [], pins: [], pinnable: [] };

  it('accepts a state with a well-formed usage section, or none', () => {
    expect(isUsageView(usage)).toBe(true);
    expect(isHostMessage({ type: 'state', state: { history, usage } })).toBe(true);
    expect(isHostMessage({ type: 'state', state: { history } })).toBe(true);
  });

  it.each([
    ['no session figures', { ...usage, session: undefined }],
    ['a non-numeric cost', { ...usage, session: { ...figures, cost: '0.5' } }],
    ['a non-finite count', { ...usage, session: { ...figures, promptTokens: Number.NaN } }],
    ['turns that are not a list', { ...usage, recentTurns: {} }],
    ['a turn without its request', { ...usage, recentTurns: [{ ...figures, turn: 1, when: 'x' }] }],
    ['no turn count', { session: figures, recentTurns: [] }],
  ])('rejects a usage section with %s', (_what, bad) => {
    expect(isUsageView(bad)).toBe(false);
    expect(isHostMessage({ type: 'state', state: { history, usage: bad } })).toBe(false);
  });
});
