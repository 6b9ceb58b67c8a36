// The count cache beside a log: after a request only the new counts are appended; old, torn and damaged files lose no count that can be read.
import { readFileSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { CountCacheFile } from '../../src/core/tokens/countCacheFile';
import { FaultyFileIo, tempDir } from '../support/sessionTempDir';

let cleanup = (): void => undefined;
afterEach(() => cleanup());

function folder(): string {
  const made = tempDir();
  cleanup = made.cleanup;
  return made.dir;
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
}

describe('count cache file', () => {
  it('appends only what was counted since the last save, and restores the sum', async () => {
    const file = nodePath.join(folder(), 'session.counts.json');
    const counts = await CountCacheFile.load(nodeFileIo, file);
    counts.cache.set('a', 'o200k_base', 'full', 5);
    counts.cache.set('b', 'o200k_base', 'pruned', 2);
    await counts.save();
    expect(lines(file)).toHaveLength(1);
    counts.cache.set('c', 'o200k_base', 'full', 7);
    counts.cache.set('a', 'o200k_base', 'full', 5);
    await counts.save();
    // The second line holds the one new count, not the cache again.
    expect(lines(file).map((line) => Object.keys((JSON.parse(line) as { counts: object }).counts))).toEqual([['a|o200k_base|full', 'b|o200k_base|pruned'], ['c|o200k_base|full']]);
    await counts.save();
    expect(lines(file)).toHaveLength(2);
    const restored = await CountCacheFile.load(nodeFileIo, file);
    expect(restored.cache.toJSON()).toEqual(counts.cache.toJSON());
    // Restored counts are saved already: nothing to append until something new is counted.
    await restored.save();
    expect(lines(file)).toHaveLength(2);
  });

  it('reads the single-record file earlier versions wrote, and appends to it', async () => {
    const file = nodePath.join(folder(), 'old.counts.json');
    writeFileSync(file, JSON.stringify({ version: 1, counts: { 'x|o200k_base|full': 3 } }));
    const counts = await CountCacheFile.load(nodeFileIo, file);
    expect(counts.cache.get('x', 'o200k_base', 'full')).toBe(3);
    counts.cache.set('y', 'o200k_base', 'full', 4);
    await counts.save();
    expect((await CountCacheFile.load(nodeFileIo, file)).cache.size).toBe(2);
  });

  it('skips a line a crash cut short, keeps the rest, and writes the file whole at the next save', async () => {
    const file = nodePath.join(folder(), 'torn.counts.json');
    const io = new FaultyFileIo();
    const counts = await CountCacheFile.load(io, file);
    counts.cache.set('a', 'o200k_base', 'full', 5);
    await counts.save();
    counts.cache.set('b', 'o200k_base', 'full', 6);
    io.failNextAppend = { partial: 12 };
    await expect(counts.save()).rejects.toThrow();
    const reopened = await CountCacheFile.load(io, file);
    expect(reopened.cache.get('a', 'o200k_base', 'full')).toBe(5);
    expect(reopened.cache.get('b', 'o200k_base', 'full')).toBeUndefined();
    // The session that saw the failure writes everything it holds next time.
    await counts.save();
    expect(lines(file)).toHaveLength(1);
    expect((await CountCacheFile.load(io, file)).cache.toJSON()).toEqual(counts.cache.toJSON());
  });

  it('starts empty on garbage and replaces it whole', async () => {
    const file = nodePath.join(folder(), 'bad.counts.json');
    writeFileSync(file, 'not json\n{"version":2}');
    const counts = await CountCacheFile.load(nodeFileIo, file);
    expect(counts.cache.size).toBe(0);
    counts.cache.set('a', 'o200k_base', 'full', 1);
    await counts.save();
    const parsed = CountCacheFile.parse(readFileSync(file, 'utf8'));
    expect(parsed.intact).toBe(true);
    expect(parsed.cache.get('a', 'o200k_base', 'full')).toBe(1);
    expect(lines(file)).toHaveLength(1);
  });
});
