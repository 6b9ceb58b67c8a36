// nodeFileIo.readFile: the whole file in one read of its size, byte for byte, at every size (empty, one byte, megabytes).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileIo } from '../../src/core/storage/fileIo';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(nodePath.join(tmpdir(), 'file-io-read-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('nodeFileIo.readFile', () => {
  it('returns every byte of empty, tiny and multi-megabyte files, and rejects a missing one with its code', async () => {
    const sizes = [0, 1, 65_536, 3 * 1024 * 1024 + 7];
    for (const size of sizes) {
      const data = Buffer.alloc(size);
      for (let index = 0; index < size; index++) data[index] = (index * 31 + (index >> 8)) & 0xff;
      const file = nodePath.join(dir, `f${size}`);
      writeFileSync(file, data);
      const read = await nodeFileIo.readFile(file);
      expect(read.length).toBe(size);
      expect(read.equals(data)).toBe(true);
    }
    await expect(nodeFileIo.readFile(nodePath.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads a file that is not a regular file of known size (a pipe-like /proc file) to its end', async () => {
    // /proc files report size 0 but hold text: the read must go on until end of file, not stop at the stat size.
    if (process.platform !== 'linux') return;
    const read = await nodeFileIo.readFile('/proc/self/status');
    expect(read.toString('utf8')).toMatch(/^Name:/m);
    expect(read.toString('utf8')).toMatch(/VmRSS|Threads/);
  });
});
