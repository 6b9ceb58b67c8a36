// The checkpoint store's format: blobs compressed, a large content kept as content-defined chunks stored once each, blobs of earlier versions (uncompressed) still read, and a missing or damaged piece named.
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectUnreferencedBlobs } from '../../src/core/storage/blobCollector';
import { parseRecipe } from '../../src/core/storage/blobFormat';
import { BlobStore, blobRefOfBytes, CHUNKED_FROM_BYTES } from '../../src/core/storage/blobStore';
import { ChunkSplitter, chunksOf, MAX_CHUNK_BYTES, MIN_CHUNK_BYTES } from '../../src/core/storage/contentChunks';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
let store: BlobStore;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  store = new BlobStore(nodePath.join(dir, 'blobs'), nodeFileIo);
});
afterEach(() => cleanup());

/** A log-like text of about `bytes` (seeded: the same at every run), compressible as real logs are. */
function logText(bytes: number, seed = 1): string {
  let state = seed;
  const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const lines: string[] = [];
  for (let total = 0; total < bytes; ) {
    const line = `2026-11-28 worker-${next() % 32} GET /api/item/${next() % 100_000} took ${next() % 900} ms status ${[200, 304, 404][next() % 3]}`;
    lines.push(line);
    total += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function storedBytes(): number {
  return readdirSync(store.dir).reduce((sum, name) => sum + statSync(nodePath.join(store.dir, name)).size, 0);
}

describe('the checkpoint store', () => {
  it('keeps a blob compressed and reads back the exact bytes', async () => {
    const text = logText(200 * 1024);
    const ref = await store.put(text);
    expect(readdirSync(store.dir)).toEqual([`${ref.sha256}.br`]);
    expect(storedBytes()).toBeLessThan(ref.bytes / 3);
    expect(await store.read(ref)).toBe(text);
  });

  it('a large file changed in a few places is stored by what changed: the second version adds a small part of the first', async () => {
    const first = Buffer.from(logText(4 * 1024 * 1024));
    const firstRef = await store.putBytes(first);
    expect(readdirSync(store.dir)).toContain(`${firstRef.sha256}.chunks`);
    const afterFirst = storedBytes();
    const second = Buffer.concat([first.subarray(0, 1_000_000), Buffer.from('an inserted line\n'), first.subarray(1_000_000, 3_000_000), first.subarray(3_000_100)]);
    const secondRef = await store.putBytes(second);
    expect(storedBytes() - afterFirst).toBeLessThan(afterFirst / 8);
    expect((await store.readBytes(secondRef)).equals(second)).toBe(true);
    expect((await store.readBytes(firstRef)).equals(first)).toBe(true);
    // Streamed chunk by chunk, never whole: every piece at most a chunk.
    const pieces: Buffer[] = [];
    for await (const piece of store.readPieces(secondRef)) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(4);
    expect(pieces.every((piece) => piece.length <= MAX_CHUNK_BYTES)).toBe(true);
  });

  it('a large text a file tool changes is stored by chunks too, and reads back with its length in characters', async () => {
    const text = `é${logText(2 * 1024 * 1024, 5)}`;
    const ref = await store.put(text);
    expect(ref).toMatchObject({ bytes: Buffer.byteLength(text), chars: text.length });
    expect(readdirSync(store.dir)).toContain(`${ref.sha256}.chunks`);
    expect(await store.read(ref)).toBe(text);
    expect(await store.put(text)).toEqual(ref);
  });

  it('splits content at the same points whatever pieces it is handed in', () => {
    const data = Buffer.from(logText(1_500_000, 7));
    const whole = chunksOf(data).map((chunk) => blobRefOfBytes(chunk).sha256);
    expect(whole.length).toBeGreaterThan(5);
    for (const size of [1, 4093, 65_536, 300_000]) {
      const splitter = new ChunkSplitter();
      const chunks: Buffer[] = [];
      for (let at = 0; at < data.length; at += size) chunks.push(...splitter.push(data.subarray(at, at + size)));
      const last = splitter.end();
      if (last) chunks.push(last);
      expect(chunks.map((chunk) => blobRefOfBytes(chunk).sha256)).toEqual(whole);
      expect(chunks.slice(0, -1).every((chunk) => chunk.length >= MIN_CHUNK_BYTES && chunk.length <= MAX_CHUNK_BYTES)).toBe(true);
    }
  });

  it('reads blobs an earlier version wrote uncompressed (<sha256>.txt), and takes one of another length for none', async () => {
    const text = 'written by version 0.1\n';
    const ref = await store.put(text);
    const old = nodePath.join(store.dir, `${ref.sha256}.txt`);
    writeFileSync(old, text);
    unlinkSync(store.pathOf(ref));
    expect(await store.has(ref)).toBe(true);
    expect(await store.keep(ref)).toBe(true);
    expect(await store.read(ref)).toBe(text);
    writeFileSync(old, `${text}torn`);
    expect(await store.has(ref)).toBe(false);
    await expect(store.read(ref)).rejects.toThrow(/not in the checkpoint store/);
  });

  it('a missing or damaged chunk, or a damaged list of chunks, is named and nothing else is given for it', async () => {
    const data = Buffer.from(logText(3 * 1024 * 1024, 3));
    expect(data.length).toBeGreaterThan(CHUNKED_FROM_BYTES);
    const ref = await store.putBytes(data);
    const list = nodePath.join(store.dir, `${ref.sha256}.chunks`);
    const recipe = parseRecipe(readFileSync(list, 'utf8'), ref.bytes);
    if (typeof recipe === 'string') throw new Error(recipe);
    const third = recipe.chunks[2]?.sha256 ?? '';
    const chunkFile = nodePath.join(store.dir, `${third}.br`);
    renameSync(chunkFile, `${chunkFile}.aside`);
    await expect(store.readBytes(ref)).rejects.toThrow(new RegExp(`chunk 3 of ${recipe.chunks.length} \\(${third}\\) of blob ${ref.sha256} is not in the checkpoint store`));
    writeFileSync(chunkFile, 'not brotli');
    await expect(store.readBytes(ref)).rejects.toThrow(/chunk 3 of .* is corrupt/);
    renameSync(`${chunkFile}.aside`, chunkFile);
    expect((await store.readBytes(ref)).equals(data)).toBe(true);
    writeFileSync(list, readFileSync(list, 'utf8').replace(/ \d+\n$/, ' 1\n'));
    await expect(store.readBytes(ref)).rejects.toThrow(/is corrupt \(its list of chunks adds up to/);
  });

  it('a damaged blob is set aside byte for byte at the read that finds it, and the same content put again is stored whole', async () => {
    const text = logText(200 * 1024, 5);
    const ref = await store.put(text);
    const file = store.pathOf(ref);
    const packed = readFileSync(file);
    // A flipped byte in the middle: not empty, still the right size, brotli may even decode it.
    const damaged = Buffer.from(packed);
    damaged[damaged.length >> 1] = (damaged[damaged.length >> 1] as number) ^ 0xff;
    writeFileSync(file, damaged);
    await expect(store.read(ref)).rejects.toThrow(/is corrupt .*set aside as [0-9a-f]{64}\.br\.damaged-[0-9a-f]{8}/);
    const aside = readdirSync(store.dir).filter((name) => name.startsWith(`${ref.sha256}.br.damaged-`));
    expect(aside).toHaveLength(1);
    expect(readFileSync(nodePath.join(store.dir, aside[0] as string)).equals(damaged)).toBe(true);
    expect(await store.has(ref)).toBe(false);
    await expect(store.read(ref)).rejects.toThrow(/not in the checkpoint store/);
    expect(await store.put(text)).toEqual(ref);
    expect(await store.read(ref)).toBe(text);
    // Content that decompresses but is another blob's: set aside as well.
    const other = await store.put('other content');
    writeFileSync(store.pathOf(other), brotliCompressSync('OTHER CONTENT'));
    await expect(store.read(other)).rejects.toThrow(/is corrupt \(content hash [0-9a-f]{64}\); the damaged file was set aside/);
    expect(await store.keep(other)).toBe(false);
  });

  it('a damaged chunk or list of chunks is set aside, and the large content stored again reads back whole', async () => {
    const data = Buffer.from(logText(3 * 1024 * 1024, 7));
    const ref = await store.putBytes(data);
    const list = nodePath.join(store.dir, `${ref.sha256}.chunks`);
    const recipe = parseRecipe(readFileSync(list, 'utf8'), ref.bytes);
    if (typeof recipe === 'string') throw new Error(recipe);
    const second = recipe.chunks[1]?.sha256 ?? '';
    const chunkFile = nodePath.join(store.dir, `${second}.br`);
    writeFileSync(chunkFile, 'not brotli');
    await expect(store.readBytes(ref)).rejects.toThrow(/chunk 2 of .* is corrupt .*set aside/);
    expect(readdirSync(store.dir).some((name) => name.startsWith(`${second}.br.damaged-`))).toBe(true);
    expect(await store.putBytes(data)).toEqual(ref);
    expect((await store.readBytes(ref)).equals(data)).toBe(true);
    writeFileSync(list, readFileSync(list, 'utf8').replace(/ \d+\n$/, ' 1\n'));
    await expect(store.readBytes(ref)).rejects.toThrow(/is corrupt \(its list of chunks adds up to.*set aside/);
    expect(await store.has(ref)).toBe(false);
    expect(await store.putBytes(data)).toEqual(ref);
    expect((await store.readBytes(ref)).equals(data)).toBe(true);
  });

  it('a reference naming a good blob with the wrong size is refused without setting the blob aside', async () => {
    const text = logText(100 * 1024, 11);
    const ref = await store.put(text);
    const file = store.pathOf(ref);
    const stored = readFileSync(file);
    await expect(store.read({ ...ref, bytes: 1000 })).rejects.toThrow(/named with 1000 bytes, which is not its size: the reference is wrong, the stored file is intact/);
    expect(readFileSync(file).equals(stored)).toBe(true);
    expect(readdirSync(store.dir).filter((name) => name.includes('.damaged-'))).toEqual([]);
    expect(await store.read(ref)).toBe(text);
  });

  it('a damaged blob that another window stored again before it was set aside is put back', async () => {
    const text = logText(64 * 1024, 9);
    const ref = await store.put(text);
    const file = store.pathOf(ref);
    const good = readFileSync(file);
    writeFileSync(file, 'damaged');
    // The other window's rewrite lands between this read and the rename.
    const racing = { ...nodeFileIo, rename: async (from: string, to: string): Promise<void> => {
      if (from === file) writeFileSync(file, good);
      await nodeFileIo.rename(from, to);
    } };
    const racer = new BlobStore(store.dir, racing);
    await expect(racer.read(ref)).rejects.toThrow(/is corrupt/);
    expect(await store.read(ref)).toBe(text);
    expect(readdirSync(store.dir).filter((name) => name.includes('.damaged-'))).toEqual([]);
  });

  it('a collection keeps the chunks of a list a session names and removes those of a list none names', async () => {
    const sessions = nodePath.dirname(store.dir);
    const kept = await store.putBytes(Buffer.from(logText(2 * 1024 * 1024, 11)));
    const dropped = await store.putBytes(Buffer.from(logText(2 * 1024 * 1024, 12)));
    writeFileSync(nodePath.join(sessions, 'a.jsonl'), `{"after":{"sha256":"${kept.sha256}"}}\n`);
    const old = Date.now() / 1000 - 3600;
    for (const name of readdirSync(store.dir)) utimesSync(nodePath.join(store.dir, name), old, old);
    const result = await collectUnreferencedBlobs(nodeFileIo, sessions, store.dir);
    expect(result.removed).toBeGreaterThan(2);
    expect((await store.readBytes(kept)).equals(Buffer.from(logText(2 * 1024 * 1024, 11)))).toBe(true);
    await expect(store.readBytes(dropped)).rejects.toThrow(/not in the checkpoint store/);
    // What is left is exactly the kept list and its chunks.
    const recipe = parseRecipe(readFileSync(nodePath.join(store.dir, `${kept.sha256}.chunks`), 'utf8'));
    if (typeof recipe === 'string') throw new Error(recipe);
    expect(readdirSync(store.dir).sort()).toEqual([`${kept.sha256}.chunks`, ...new Set(recipe.chunks.map((chunk) => `${chunk.sha256}.br`))].sort());
    // Each chunk file is brotli of its content.
    const first = recipe.chunks[0];
    expect(brotliDecompressSync(readFileSync(nodePath.join(store.dir, `${first?.sha256}.br`))).length).toBe(first?.bytes);
  });
});
