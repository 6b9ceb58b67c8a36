// Content-addressed blobs: dedup by sha-256, exact round trip, corruption detected.
import { readdirSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('BlobStore', () => {
  it('stores text once per content and reads it back exactly', async () => {
    const store = new BlobStore(nodePath.join(dir, 'blobs'), nodeFileIo);
    const text = 'line one\r\nemoji 😀 and \u0000 nul\n';
    const ref = await store.put(text);
    expect(ref).toMatchObject({ bytes: Buffer.byteLength(text), chars: text.length });
    expect(await store.put(text)).toEqual(ref);
    expect(readdirSync(nodePath.join(dir, 'blobs'))).toHaveLength(1);
    expect(await store.read(ref)).toBe(text);
    expect(await store.has(ref)).toBe(true);
    expect(await store.has({ ...ref, sha256: 'f'.repeat(64) })).toBe(false);
  });

  it('detects a corrupted blob instead of returning wrong text', async () => {
    const store = new BlobStore(dir, nodeFileIo);
    const ref = await store.put('original');
    writeFileSync(store.pathOf(ref), 'tampered');
    await expect(store.read(ref)).rejects.toThrow(/corrupt/);
    expect(() => store.pathOf({ sha256: '../etc/passwd' })).toThrow(/invalid blob hash/);
  });
});
