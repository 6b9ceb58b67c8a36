// Moving a window's sessions into the folder every window of the workspace shares: nothing lost, nothing moved under a writer.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionIndexStore } from '../../src/core/session/sessionIndex';
import { SessionLog } from '../../src/core/session/sessionLog';
import { migrateSessions } from '../../src/core/session/sessionsMigration';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { tempDir } from '../support/sessionTempDir';

let root: string;
let cleanup: () => void;
let from: string;
let to: string;
beforeEach(() => {
  ({ dir: root, cleanup } = tempDir());
  from = nodePath.join(root, 'window-storage', 'sessions');
  to = nodePath.join(root, 'shared', 'sessions');
  mkdirSync(from, { recursive: true });
});
afterEach(() => cleanup());

/** A session with one request in `dir`, its index record (titled, with a thread key), a count file and a blob. */
async function session(dir: string, id: string, title: string): Promise<SessionLog> {
  const log = await SessionLog.create(nodePath.join(dir, `${id}.jsonl`), { id, title });
  await log.append({ type: 'user', text: `request of ${id}` });
  writeFileSync(nodePath.join(dir, `${id}.counts.json`), '{"counts":1}');
  mkdirSync(nodePath.join(dir, 'blobs', 'ab'), { recursive: true });
  writeFileSync(nodePath.join(dir, 'blobs', 'ab', `blob-of-${id}`), `bytes of ${id}`);
  const index = new SessionIndexStore(dir, nodeFileIo);
  await index.load();
  await index.upsert({ id, title, file: `${id}.jsonl`, createdAt: new Date().toISOString(), updatedAt: new Date(Date.now() + 1000).toISOString(), threadKey: `thread-${id}`, untitled: true });
  return log;
}

async function listed(dir: string): Promise<Array<[string, string, string | undefined]>> {
  const index = new SessionIndexStore(dir, nodeFileIo);
  await index.load();
  await index.refresh();
  return index.list().map((record) => [record.id, record.title, record.threadKey] as [string, string, string | undefined]).sort();
}

describe('migrateSessions', () => {
  it('moves every log with its companions, index record and blobs, and leaves no session behind', async () => {
    await (await session(from, 's1', 'First')).close();
    await (await session(from, 's2', 'Second')).close();
    const before = readFileSync(nodePath.join(from, 's1.jsonl'));

    expect(await migrateSessions(nodeFileIo, from, to)).toEqual({ moved: 2, waiting: 0, renamed: 0 });

    expect(readFileSync(nodePath.join(to, 's1.jsonl')).equals(before)).toBe(true);
    expect(readFileSync(nodePath.join(to, 's2.counts.json'), 'utf8')).toBe('{"counts":1}');
    expect(readFileSync(nodePath.join(to, 'blobs', 'ab', 'blob-of-s2'), 'utf8')).toBe('bytes of s2');
    expect(await listed(to)).toEqual([['s1', 'First', 'thread-s1'], ['s2', 'Second', 'thread-s2']]);
    expect(readdirSync(from).filter((name) => name.endsWith('.jsonl') || name === 'index.json')).toEqual([]);
    expect(existsSync(nodePath.join(from, 'blobs', 'ab', 'blob-of-s1'))).toBe(false);
    const { log } = await SessionLog.open(nodePath.join(to, 's1.jsonl'));
    expect(log.path().map((entry) => entry.type)).toContain('user');
    await log.close();
  });

  it('leaves a log another window writes where it is (its blobs copied, not moved) and moves it once it is free', async () => {
    await (await session(from, 'free', 'Free')).close();
    const busy = await session(from, 'busy', 'Busy');

    expect(await migrateSessions(nodeFileIo, from, to)).toEqual({ moved: 1, waiting: 1, renamed: 0 });
    expect(existsSync(nodePath.join(from, 'busy.jsonl'))).toBe(true);
    expect(readFileSync(nodePath.join(from, 'blobs', 'ab', 'blob-of-busy'), 'utf8')).toBe('bytes of busy');
    expect(readFileSync(nodePath.join(to, 'blobs', 'ab', 'blob-of-busy'), 'utf8')).toBe('bytes of busy');
    // The window that holds it goes on writing, in place.
    await busy.append({ type: 'user', text: 'written after the first migration' });
    await busy.close();

    expect(await migrateSessions(nodeFileIo, from, to)).toEqual({ moved: 1, waiting: 0, renamed: 0 });
    expect(readFileSync(nodePath.join(to, 'busy.jsonl'), 'utf8')).toContain('written after the first migration');
    expect(existsSync(nodePath.join(from, 'blobs', 'ab', 'blob-of-busy'))).toBe(false);
    expect((await listed(to)).map(([id]) => id)).toEqual(['busy', 'free']);
  });

  it('gives a log whose name the shared folder already uses for another file a new name, and the record follows it', async () => {
    await (await session(from, 'same', 'From this window')).close();
    mkdirSync(to, { recursive: true });
    await (await session(to, 'same', 'From the other window')).close();
    writeFileSync(nodePath.join(to, 'same.jsonl'), readFileSync(nodePath.join(to, 'same.jsonl'), 'utf8').replace('"id":"same"', '"id":"other"'));
    const index = new SessionIndexStore(to, nodeFileIo);
    await index.load();
    await index.remove('same');

    expect(await migrateSessions(nodeFileIo, from, to)).toEqual({ moved: 1, waiting: 0, renamed: 1 });
    const moved = readdirSync(to).filter((name) => name.startsWith('same-moved-') && name.endsWith('.jsonl'));
    expect(moved).toHaveLength(1);
    expect((await listed(to)).find(([id]) => id === 'same')?.[1]).toBe('From this window');
  });

  it('loses nothing when two windows migrate the same folder at once', async () => {
    for (const id of ['a', 'b', 'c', 'd']) await (await session(from, id, id.toUpperCase())).close();
    const results = await Promise.all([migrateSessions(nodeFileIo, from, to), migrateSessions(nodeFileIo, from, to)]);
    const moved = results.reduce((sum, result) => sum + result.moved, 0);
    const again = await migrateSessions(nodeFileIo, from, to);
    expect(moved + again.moved).toBe(4);
    expect((await listed(to)).map(([id]) => id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('does nothing without an old folder, or when the old folder is the shared one', async () => {
    expect(await migrateSessions(nodeFileIo, nodePath.join(root, 'missing'), to)).toEqual({ moved: 0, waiting: 0, renamed: 0 });
    await (await session(from, 'here', 'Here')).close();
    expect(await migrateSessions(nodeFileIo, from, from)).toEqual({ moved: 0, waiting: 0, renamed: 0 });
    expect(existsSync(nodePath.join(from, 'here.jsonl'))).toBe(true);
  });
});
