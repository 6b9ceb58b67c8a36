// nodeFileIo.readFile and the quick exclusive create: every byte at every size (either side of the synchronous-read bound), and O_EXCL kept.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileIo, SYNC_READ_MAX_BYTES } from '../../src/core/storage/fileIo';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(nodePath.join(tmpdir(), 'file-io-read-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('nodeFileIo.readFile', () => {
  it('returns every byte of empty, tiny and multi-megabyte files, and rejects a missing one with its code', async () => {
    const sizes = [0, 1, 65_536, SYNC_READ_MAX_BYTES, SYNC_READ_MAX_BYTES + 1, 3 * 1024 * 1024 + 7];
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

  it('does not hold the event loop on a named pipe: the read waits in the thread pool for a writer', async () => {
    if (process.platform === 'win32') return;
    const fifo = nodePath.join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const read = nodeFileIo.readFile(fifo);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ticks).toBeGreaterThan(2);
    writeFileSync(fifo, 'written later');
    expect((await read).toString('utf8')).toBe('written later');
    clearInterval(timer);
  });

  it('rejects a folder with its code on either path, leaving nothing open', async () => {
    await expect(nodeFileIo.readFile(dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

describe('nodeFileIo.createExclusive without fsync', () => {
  it('creates a missing file with its text, and refuses an existing one without touching it', async () => {
    const file = nodePath.join(dir, 'x.lock');
    expect(await nodeFileIo.createExclusive(file, '{"pid":1}', { durable: false })).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('{"pid":1}');
    expect(await nodeFileIo.createExclusive(file, '{"pid":2}', { durable: false })).toBe(false);
    expect(await nodeFileIo.createExclusive(file, '{"pid":3}')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('{"pid":1}');
    await expect(nodeFileIo.createExclusive(nodePath.join(dir, 'missing', 'y.lock'), 'z', { durable: false })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
