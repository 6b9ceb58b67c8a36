// Importing the token modules must not load the BPE tables; creating a counter loads them once.
import { describe, expect, it, vi } from 'vitest';

describe('lazy tokenizer loading', () => {
  it('loads the encoding on TokenCounter.create, not on import', async () => {
    const loads: string[] = [];
    vi.resetModules();
    vi.doMock('gpt-tokenizer/encoding/o200k_base', async (importOriginal) => {
      loads.push('o200k_base');
      return importOriginal();
    });
    vi.doMock('gpt-tokenizer/encoding/cl100k_base', async (importOriginal) => {
      loads.push('cl100k_base');
      return importOriginal();
    });
    const { TokenCounter } = await import('../../src/core/tokens/tokenCounter');
    await import('../../src/core/compaction/compaction');
    expect(loads).toEqual([]);
    const counter = await TokenCounter.create('gpt-4o');
    await TokenCounter.create('gpt-5');
    expect(loads).toEqual(['o200k_base']);
    expect(counter.countText('hello world')).toBe(2);
    await TokenCounter.create('gpt-3.5-turbo');
    expect(loads).toEqual(['o200k_base', 'cl100k_base']);
  });
});
