// Refused images survive a restart through their stored form, and a damaged stored form is read safely.
import { describe, expect, it } from 'vitest';
import { ImageRejections } from '../../src/core/llm/imageRejections';

const hash = (letter: string): string => letter.repeat(64);

describe('refused images across a restart', () => {
  it('a new host that restores the stored form does not send a refused image again', () => {
    const first = new ImageRejections();
    let stored: unknown;
    first.onChange(() => {
      stored = JSON.parse(JSON.stringify(first.snapshot())) as unknown;
    });
    first.add('http://localhost:11434/v1', 'llama3', [hash('a')]);
    expect(stored).toEqual({ 'http://localhost:11434/v1\u0000llama3': [hash('a')] });

    const restarted = new ImageRejections();
    restarted.restore(stored);
    expect(restarted.forModel('http://localhost:11434/v1', 'llama3').has(hash('a'))).toBe(true);
    expect(restarted.forModel('http://localhost:11434/v1', 'llava').size).toBe(0);
  });

  it('reads a damaged or hostile stored form as far as it is sound, bounded, and never throws', () => {
    const restored = new ImageRejections(3, 2);
    for (const value of [null, 7, 'text', [hash('a')], { noSeparator: [hash('a')] }, { 'e\u0000m': 'not a list' }]) restored.restore(value);
    expect(restored.snapshot()).toEqual({});
    restored.restore({
      'e\u0000m': [hash('a'), '../../etc/passwd', 42, hash('b'), hash('c'), hash('d')],
      'e\u0000n': [hash('e')],
      'e\u0000o': [hash('f')],
    });
    expect(restored.snapshot()).toEqual({ 'e\u0000m': [hash('a'), hash('b'), hash('c')], 'e\u0000n': [hash('e')] });
  });

  it('stores only content hashes, and only when something changed', () => {
    const rejections = new ImageRejections();
    let writes = 0;
    rejections.onChange(() => writes++);
    rejections.add('e', 'm', ['<script>', '']);
    rejections.add('e', 'm', [hash('a')]);
    rejections.add('e', 'm', [hash('a')]);
    expect(writes).toBe(1);
    expect(rejections.snapshot()).toEqual({ 'e\u0000m': [hash('a')] });
  });
});
