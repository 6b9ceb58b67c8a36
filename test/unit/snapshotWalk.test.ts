// The snapshot walk: which files it takes (git's own listing is the oracle for .gitignore), what the stat index saves, and a change it must not miss.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeFolderSnapshot, type SnapshotContext } from '../../src/core/checkpoints/folderSnapshot';
import { FolderRules } from '../../src/core/checkpoints/ignoreFiles';
import { shownKey } from '../../src/core/checkpoints/pathKeys';
import { StatIndex } from '../../src/core/checkpoints/statIndex';
import { StoreBudget } from '../../src/core/checkpoints/storeBudget';
import { BlobStore } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { gitAvailable, gitListing } from '../support/gitOracle';

let base: string;
let root: string;
let context: SnapshotContext;
let store: BlobStore;

beforeEach(() => {
  base = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'snapshot-walk-')));
  root = nodePath.join(base, 'ws');
  mkdirSync(root);
  store = new BlobStore(nodePath.join(base, 'blobs'), nodeFileIo);
  context = { store, maxBytes: 1024 * 1024, caps: { maxFiles: 10_000, maxBytes: 100 * 1024 * 1024 }, budget: new StoreBudget(store.dir, () => Number.POSITIVE_INFINITY) };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function write(relative: string, text = `${relative}\n`): void {
  const file = nodePath.join(root, relative);
  mkdirSync(nodePath.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

async function walked(index = new StatIndex(), rules = new FolderRules()): Promise<string[]> {
  const snapshot = await takeFolderSnapshot(root, index, rules, context);
  return [...snapshot.files.keys()].map(shownKey).sort();
}

describe('the snapshot walk', () => {
  it.runIf(gitAvailable())('takes exactly the files git would, under nested .gitignore files with negation, anchors, folders-only rules and **', async () => {
    write('.gitignore', ['*.log', '!keep.log', '/build', 'tmp/', 'docs/**/draft-*', '# comment', 'trailing\\ ', '\\#hash', 'a?c.txt', '[xy]z.txt', 'deep/**/gen', ''].join('\n'));
    for (const file of ['app.log', 'keep.log', 'sub/app.log', 'sub/keep.log', 'build/out.js', 'src/build/kept.js', 'tmp/x', 'src/tmp/y', 'docs/a/draft-1.md', 'docs/a/final.md', '#hash', 'abc.txt', 'abbc.txt', 'xz.txt', 'zz.txt', 'deep/a/b/gen/g.js', 'deep/a/gen.js']) write(file);
    write('src/.gitignore', '*.js\n!kept.js\n/local.txt\n');
    for (const file of ['src/a.js', 'src/local.txt', 'src/inner/local.txt', 'src/inner/b.js', 'src/main.ts']) write(file);
    write('src/inner/.gitignore', '!b.js\n');
    write('trailing ', 'x');
    expect(await walked()).toEqual(gitListing(root));
  });

  it('skips every .git (a folder or a file) but walks nested repositories', async () => {
    write('.git/config', 'x');
    write('vendor/lib/.git/HEAD', 'x');
    write('vendor/lib/src.c');
    write('vendor/sub/.git', 'gitdir: ../../.git/modules/sub');
    write('vendor/sub/file.c');
    expect(await walked()).toEqual(['vendor/lib/src.c', 'vendor/sub/file.c']);
  });

  it('reads an unchanged file once: the index vouches for it afterwards', async () => {
    write('a.txt', 'one');
    const index = new StatIndex();
    await walked(index);
    // Old enough not to be racily clean, and the index entry read after its last change.
    const old = new Date(Date.now() - 60_000);
    utimesSync(nodePath.join(root, 'a.txt'), old, old);
    // Read again (its stats changed) once its inode change time is far enough behind the reading not to be racy.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await walked(index);
    const entry = index.entries.get('a.txt');
    expect(entry?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const readAt = entry?.readAt;
    await walked(index);
    expect(index.entries.get('a.txt')?.readAt).toBe(readAt);
  });

  it('a change that keeps the size and puts the time back is still seen (the inode change time moves)', async () => {
    write('a.txt', 'one');
    const old = new Date(Date.now() - 60_000);
    utimesSync(nodePath.join(root, 'a.txt'), old, old);
    const index = new StatIndex();
    const first = await takeFolderSnapshot(root, index, new FolderRules(), context);
    await new Promise((resolve) => setTimeout(resolve, 20));
    writeFileSync(nodePath.join(root, 'a.txt'), 'two');
    utimesSync(nodePath.join(root, 'a.txt'), old, old);
    expect(Math.abs(statSync(nodePath.join(root, 'a.txt')).mtimeMs - old.getTime())).toBeLessThan(1);
    const second = await takeFolderSnapshot(root, index, new FolderRules(), context);
    expect(second.files.get('a.txt')?.sha256).not.toBe(first.files.get('a.txt')?.sha256);
    expect(await store.readBytes({ sha256: second.files.get('a.txt')?.sha256 ?? '' })).toEqual(Buffer.from('two'));
  });

  it('a workspace folder opened through a link is walked; links below it are recorded, never followed', async () => {
    write('a.txt');
    mkdirSync(nodePath.join(base, 'elsewhere'));
    writeFileSync(nodePath.join(base, 'elsewhere', 'secret.txt'), 'outside');
    symlinkSync(nodePath.join(base, 'elsewhere'), nodePath.join(root, 'out'));
    const linked = nodePath.join(base, 'linked-ws');
    symlinkSync(root, linked);
    const snapshot = await takeFolderSnapshot(linked, new StatIndex(), new FolderRules(), context);
    expect([...snapshot.files.keys()].sort()).toEqual(['a.txt', 'out']);
    expect(snapshot.files.get('out')?.link).toBe(true);
  });

  it('the stat index file round-trips, keeps every hash in full (what keeps its blobs), and refuses a foreign folder', async () => {
    write('a.txt', 'one');
    write('b/c.txt', 'two');
    const index = new StatIndex();
    await walked(index);
    const text = index.serialize(root);
    const again = StatIndex.parse(text, root);
    expect([...again.entries.keys()].sort()).toEqual(['a.txt', 'b/c.txt']);
    expect(text).toContain(index.entries.get('a.txt')?.sha256 ?? 'missing');
    expect(StatIndex.parse(text, '/elsewhere').entries.size).toBe(0);
    expect(StatIndex.parse(`${text.split('\n')[0] ?? ''}\n${'f'.repeat(64)} 1 1 1 1 1 1 1 "../escape"\n`, root).entries.size).toBe(0);
    expect(readFileSync(nodePath.join(root, 'a.txt'), 'utf8')).toBe('one');
  });
});
