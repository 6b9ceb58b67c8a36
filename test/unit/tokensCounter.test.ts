// Token counting: equality with gpt-tokenizer's chat counting, tools and tool calls, sliced counting, cache, calibration.
import { describe, expect, it, vi } from 'vitest';
import { countChatCompletionTokens, countTokens } from 'gpt-tokenizer/model/gpt-4o';
import type { ChatMessage, ChatToolDefinition } from '../../src/core/context/chatMessage';
import { encodingForModel } from '../../src/core/tokens/encoding';
import { TokenCounter, estimateTokens } from '../../src/core/tokens/tokenCounter';
import { textSlices } from '../../src/core/tokens/textSlices';
import { CountCache } from '../../src/core/tokens/countCache';
import { countPath, entryMessage } from '../../src/core/tokens/entryTokens';
import { countEntry } from '../support/countOne';
import { isMessageEntry } from '../../src/core/session/entries';
import { PathBuilder } from '../support/sessionPathBuilder';

const countChat = countChatCompletionTokens!;

const READ_FILE_TOOL: ChatToolDefinition = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Read a file of the workspace',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Workspace-relative path' },
        offset: { type: 'integer', description: 'First line' },
        mode: { type: 'string', enum: ['text', 'lines'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['path'],
    },
  },
};

describe('encodingForModel', () => {
  it('maps current OpenAI models to o200k_base, older to cl100k_base, unknown to an o200k estimate', () => {
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-5', 'o3-mini', 'o1', 'openai/gpt-4o', 'GPT-4O']) {
      expect(encodingForModel(model)).toEqual({ encoding: 'o200k_base', exact: true });
    }
    for (const model of ['gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo', 'gpt-4-0613']) {
      expect(encodingForModel(model)).toEqual({ encoding: 'cl100k_base', exact: true });
    }
    for (const model of ['llama-3.1-70b', 'claude-sonnet-4-5', 'qwen2.5-coder', 'o-mini-thing', '']) {
      expect(encodingForModel(model)).toEqual({ encoding: 'o200k_base', exact: false });
    }
  });
});

describe('TokenCounter', () => {
  it('equals gpt-tokenizer chat counting for plain messages', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const messages = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the bug in src/a.ts, then run the tests. ünïcödé 🚀' },
      { role: 'assistant', content: 'Done: the loop was off by one.' },
      { role: 'user', content: '' },
    ] as const;
    expect(counter.countMessages(messages as unknown as ChatMessage[])).toBe(countChat({ messages }));
    expect(counter.exact).toBe(true);
  });

  it('counts tool definitions as gpt-tokenizer renders them into the prompt', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const user = [{ role: 'user', content: 'hi' }] as const;
    const functions = [
      {
        name: 'read_file',
        description: 'Read a file of the workspace',
        parameters: {
          type: 'object' as const,
          properties: {
            path: { type: 'string' as const, description: 'Workspace-relative path' },
            offset: { type: 'number' as const, description: 'First line' },
            mode: { type: 'string' as const, enum: ['text', 'lines'] },
            tags: { type: 'array' as const, items: { type: 'string' as const } },
          },
          required: ['path'],
        },
      },
    ];
    const expected = countChat({ messages: user, functions }) - countChat({ messages: user });
    expect(counter.countTools([READ_FILE_TOOL])).toBe(expected);
    expect(expected).toBeGreaterThan(30);
    expect(counter.countTools([])).toBe(0);
  });

  it('counts tool-call names and arguments like a function_call message, once per call', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const args = '{"path":"src/core/tokens/tokenCounter.ts","offset":120}';
    const call = { id: 'c1', type: 'function' as const, function: { name: 'read_file', arguments: args } };
    const one = counter.countMessage({ role: 'assistant', content: null, tool_calls: [call] });
    const library = countChat({ messages: [{ role: 'assistant', content: '', function_call: { name: 'read_file', arguments: args } }] });
    expect(one + 3).toBe(library);
    const two = counter.countMessage({ role: 'assistant', content: null, tool_calls: [call, { ...call, id: 'c2' }] });
    expect(two - one).toBe(countTokens('read_file') + countTokens(args) + 3);
    const tool = counter.countMessage({ role: 'tool', tool_call_id: 'c1', content: 'export const x = 1;' });
    expect(tool).toBe(countTokens('tool') + countTokens('export const x = 1;') + 3);
  });

  it('treats special-token text in outputs as plain text instead of throwing', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    expect(counter.countText('a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('counts huge texts in slices within one token per slice boundary', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const line = 'const value = compute(items[index], { retries: 3 }); // résumé\n';
    const huge = line.repeat(Math.ceil((5 * 1024 * 1024) / line.length));
    const slices = textSlices(huge);
    expect(slices.join('')).toBe(huge);
    const sliced = await counter.countTextSliced(huge);
    expect(Math.abs(sliced - counter.countText(huge))).toBeLessThanOrEqual(slices.length - 1);
    const noSpaces = 'x'.repeat(200_000) + '😀'.repeat(40_000);
    const parts = textSlices(noSpaces, 1000);
    expect(parts.join('')).toBe(noSpaces);
    expect(parts.every((part) => part.length <= 1000 && !/^[\udc00-\udfff]/.test(part))).toBe(true);
  });

  it('rejects sliced counting when aborted', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const controller = new AbortController();
    const promise = counter.countTextSliced('word '.repeat(100_000), controller.signal);
    controller.abort(new Error('stop'));
    await expect(promise).rejects.toThrow('stop');
  });

  it('has a chars/4 estimate for use before the tokenizer loads', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('abcdefghi')).toBe(3);
  });
});

describe('CountCache', () => {
  it('counts each entry once per variant (placeholders only when asked) and round-trips through JSON', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const builder = new PathBuilder();
    builder.user('u1', 'read it');
    builder.assistant('a1', ['c1']);
    builder.tool('t1', 'c1', 'line\n'.repeat(500));
    const cache = new CountCache();
    const spy = vi.spyOn(counter, 'countMessageParts');
    const first = countPath(builder.path(), counter, cache);
    // Nothing is tokenized until asked (history a compaction summarized is never asked for); each entry once.
    expect(spy).toHaveBeenCalledTimes(0);
    expect([first.full.get('u1'), first.full.get('a1')].every((tokens) => tokens! > 0)).toBe(true);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(first.full.get('u1')).toBeGreaterThan(0);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(first.pruned.get('t1')).toBeLessThan(first.full.get('t1')!);
    expect(spy).toHaveBeenCalledTimes(4);
    const again = countPath(builder.path(), counter, cache);
    expect(again.pruned.get('t1')).toBe(first.pruned.get('t1'));
    expect(spy).toHaveBeenCalledTimes(4);
    expect(new Map(again.full)).toEqual(new Map(first.full));
    expect([...first.full.keys()]).toEqual(['u1', 'a1', 't1']);
    expect([...first.pruned.keys()]).toEqual(['t1']);
    const restored = CountCache.fromJSON(JSON.parse(JSON.stringify(cache)));
    expect(restored.toJSON()).toEqual(cache.toJSON());
    const tool = builder.entries[2]!;
    if (tool.type !== 'toolResult') throw new Error('expected a tool result');
    expect(countEntry(tool, counter, restored)).toBe(first.full.get('t1'));
    expect(spy).toHaveBeenCalledTimes(4);
  });

  it('counts an entry exactly as the chat message it becomes, in both variants', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const builder = new PathBuilder();
    builder.user('u1', 'look at <|endoftext|> this');
    builder.assistant('a1', ['c1', 'c2'], '');
    builder.tool('t1', 'c1', 'out\n'.repeat(40));
    builder.tool('t2', 'c2', '');
    builder.assistant('a2', [], 'done, see above');
    const image = { blob: { sha256: 'f'.repeat(64), bytes: 10, chars: 10 }, mimeType: 'image/png', name: 'shot.png', width: 1024, height: 1024 };
    const withImages = { ...builder.entries[0]!, id: 'u2', images: [image, image] } as typeof builder.entries[0];
    const entries = [...builder.path(), withImages].filter(isMessageEntry);
    for (const entry of entries) {
      for (const variant of ['full', 'pruned'] as const) {
        const images = entry.type === 'user' ? (entry.images?.length ?? 0) * 765 : 0;
        const expected = counter.countMessage(entryMessage(entry, variant));
        expect(expected - counter.countMessage({ ...entryMessage(entry, variant), images: [] } as ReturnType<typeof entryMessage>)).toBe(images);
        expect(countEntry(entry, counter, new CountCache(), variant), `${entry.id} ${variant}`).toBe(expected);
      }
    }
    // The pruned variant of a tool result is its placeholder, which is shorter than this output.
    expect(countEntry(entries[2]!, counter, new CountCache(), 'pruned')).toBeLessThan(countEntry(entries[2]!, counter, new CountCache()));
  });

  it('drops malformed persisted records instead of trusting them', () => {
    expect(CountCache.fromJSON('garbage').size).toBe(0);
    expect(CountCache.fromJSON({ version: 2, counts: { 'a|o200k_base|full': 3 } }).size).toBe(0);
    const cache = CountCache.fromJSON({ version: 1, counts: { 'a|o200k_base|full': 3, 'b|o200k_base|full': -1, bad: 4, 'c|x|full': 'no' } });
    expect(cache.size).toBe(1);
    expect(cache.get('a', 'o200k_base', 'full')).toBe(3);
  });
});
