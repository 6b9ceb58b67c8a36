// Inputs that once crashed or stalled the host: long unbroken runs for BPE, huge paths, reused call ids on every turn.
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { buildContext } from '../../src/core/context/contextBuilder';
import { countBoundedRuns, MAX_RUN_CHARS } from '../../src/core/tokens/boundedRuns';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { validateChatMessages } from '../support/validateChatMessages';
import { chainEntries } from '../support/sessionPathBuilder';

const plain = { disallowedSpecial: new Set<string>() };
const exact = (text: string): number => countTokens(text, plain);

describe('token counting of pathological text', () => {
  it('long-unbroken-run-is-counted-in-pieces-with-the-same-total', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    // Before: 64 KB of one letter was one pre-token and took seconds of quadratic merging.
    expect(counter.countText('a'.repeat(65_536))).toBe(exact('a'.repeat(4096)) * 16);
  });

  it('unpunctuated-cjk-is-counted-within-two-percent', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const text = '漢字のテスト文章'.repeat(500);
    const truth = exact(text);
    expect(Math.abs(counter.countText(text) - truth) / truth).toBeLessThan(0.02);
  });

  it('ordinary-text-is-counted-exactly', () => {
    const text = 'function add(a, b) {\n  return a + b; // sum\n}\n'.repeat(200) + `${'x'.repeat(MAX_RUN_CHARS)} tail`;
    expect(countBoundedRuns(text, exact)).toBe(exact(text));
  });

  it('a-run-of-emoji-is-never-cut-inside-a-surrogate-pair', () => {
    const pieces: string[] = [];
    countBoundedRuns('😀'.repeat(1000), (piece) => {
      pieces.push(piece);
      return exact(piece);
    });
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length % 2).toBe(0);
    expect(pieces.join('')).toBe('😀'.repeat(1000));
  });
});

describe('context building at scale', () => {
  it('a-path-of-130k-messages-builds-without-a-stack-overflow', () => {
    const path = chainEntries(Array.from({ length: 130_000 }, (_, i) => (i % 2 === 0 ? { type: 'user', text: `q${i}` } : { type: 'assistant', text: `a${i}`, toolCalls: [] })));
    const { messages } = buildContext(path);
    expect(messages).toHaveLength(130_000);
  });

  it('twenty-thousand-turns-reusing-call_0-keep-every-pair-with-unique-wire-ids', () => {
    const fields: Array<Record<string, unknown>> = [];
    for (let turn = 0; turn < 20_000; turn++) {
      fields.push({ type: 'user', text: `turn ${turn}` });
      fields.push({ type: 'assistant', text: '', toolCalls: [{ id: 'call_0', name: 'read_file', arguments: '{}' }] });
      fields.push({ type: 'toolResult', toolCallId: 'call_0', toolName: 'read_file', isError: false, content: `out ${turn}` });
      fields.push({ type: 'assistant', text: 'ok', toolCalls: [] });
    }
    const { messages } = buildContext(chainEntries(fields));
    expect(validateChatMessages(messages)).toEqual([]);
    const results = messages.filter((message) => message.role === 'tool');
    expect(results).toHaveLength(20_000);
    expect(results[19_999]?.content).toBe('out 19999');
    expect(new Set(results.map((message) => message.tool_call_id)).size).toBe(20_000);
  });
});
