// Small hostile cases: 232–255-byte file names written through a temp file, a hard-linked picture the user picked, a 100,000-character path.
import { existsSync, linkSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { tempPathBeside } from '../../src/core/storage/tempName';
import { resolveSafely } from '../../src/core/tools/pathSafety';
import { readRegularFile, writeFileAtomically } from '../../src/core/tools/safeFileIo';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('names of 232 to 255 bytes', () => {
  for (const length of [232, 240, 255]) {
    it(`a ${length}-byte name is written through its temp file (tools and storage)`, async () => {
      const target = nodePath.join(dir, 'n'.repeat(length));
      await writeFileAtomically(target, 'tool text', [dir], 'long name');
      expect(readFileSync(target, 'utf8')).toBe('tool text');
      await nodeFileIo.writeFileAtomic(target, 'store text');
      expect(readFileSync(target, 'utf8')).toBe('store text');
      expect(readdirSync(dir)).toEqual(['n'.repeat(length)]);
    });
  }

  it('never splits a character of a long name', () => {
    const name = nodePath.basename(tempPathBeside(nodePath.join(dir, 'é'.repeat(127)), 'tmp'));
    expect(Buffer.byteLength(name, 'utf8')).toBeLessThanOrEqual(255);
    expect(name).not.toContain('\uFFFD');
  });
});

describe('a hard-linked picture', () => {
  it('is read when the user picked it, and still refused as a workspace file', async () => {
    const original = nodePath.join(dir, 'photo.png');
    writeFileSync(original, 'bytes');
    linkSync(original, nodePath.join(dir, 'link.png'));
    expect((await readRegularFile(original, 'photo.png', 1024, 'allow')).toString()).toBe('bytes');
    await expect(readRegularFile(original, 'photo.png', 1024)).rejects.toThrow(/hard links/);
  });
});

describe('a 100,000-character path', () => {
  it('is refused on its length, and the refusal quotes only its start', async () => {
    const error = await resolveSafely('a/'.repeat(50_000), [dir]).catch((caught: unknown) => caught);
    expect(String(error)).toMatch(/100000 characters long/);
    expect(String(error).length).toBeLessThan(500);
    expect(existsSync(nodePath.join(dir, 'a'))).toBe(false);
  });

  it('a single name longer than 255 bytes is refused too', async () => {
    await expect(resolveSafely(`src/${'x'.repeat(300)}.ts`, [dir])).rejects.toThrow(/longer than 255 bytes/);
  });
});
