// The sessions index: atomic updates, thread keys, and a rebuild from the logs when index.json is corrupt.
import { readFileSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionIndexStore, type SessionRecord } from '../../src/core/session/sessionIndex';
import { SessionLog } from '../../src/core/session/sessionLog';
import { titleFromRequest } from '../../src/core/session/sessionTitle';
import { nodeFileIo, type FileIo } from '../../src/core/storage/fileIo';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('SessionIndexStore', () => {
  it('persists records and finds them by thread key', async () => {
    const store = new SessionIndexStore(dir, nodeFileIo);
    expect((await store.load()).sessions).toEqual([]);
    // A record lives as long as its log file (the files are the truth), so both logs exist first.
    for (const id of ['a', 'b']) writeFileSync(nodePath.join(dir, `${id}.jsonl`), '');
    await store.upsert({ id: 'a', title: 'A', file: 'a.jsonl', createdAt: '2025-01-01', updatedAt: '2025-01-02', threadKey: 'thread-1' });
    await store.upsert({ id: 'b', title: 'B', file: 'b.jsonl', createdAt: '2025-01-01', updatedAt: '2025-01-03' });
    const reloaded = new SessionIndexStore(dir, nodeFileIo);
    const { sessions, warnings } = await reloaded.load();
    expect(warnings).toEqual([]);
    expect(sessions.map((record) => record.id)).toEqual(['b', 'a']);
    expect(reloaded.findByThreadKey('thread-1')?.id).toBe('a');
    await reloaded.remove('a');
    expect((JSON.parse(readFileSync(reloaded.indexFile, 'utf8')) as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  it('rebuilds a corrupt index from the session files and warns', async () => {
    const log = await SessionLog.create(nodePath.join(dir, 's1.jsonl'), { id: 's1', title: 'First' });
    await log.close();
    writeFileSync(nodePath.join(dir, 'junk.jsonl'), 'not a session\n');
    writeFileSync(nodePath.join(dir, 'index.json'), '{"sessions": [ {broken');
    const store = new SessionIndexStore(dir, nodeFileIo);
    const { sessions, warnings } = await store.load();
    expect(sessions.map((record) => [record.id, record.title, record.file])).toEqual([['s1', 'First', 's1.jsonl']]);
    expect(warnings).toEqual([expect.stringContaining('corrupt'), expect.stringContaining('skipped junk.jsonl')]);
    expect((await new SessionIndexStore(dir, nodeFileIo).load()).warnings).toEqual([]);
  });

  it('names sessions found without a record by their first request, keeps a hand-off’s source, and leaves an empty one untitled', async () => {
    const source = await SessionLog.create(nodePath.join(dir, 'src.jsonl'), { id: 'src', title: 'Parser work' });
    await source.close();
    // Started by /new and a hand-off: no title in the header; the first request with words names them.
    const fresh = await SessionLog.create(nodePath.join(dir, 'new.jsonl'), { id: 'new' });
    await fresh.append({ type: 'user', text: '   ' });
    await fresh.append({ type: 'user', text: 'fix the\n  slugify   test' });
    await fresh.close();
    const handoff = await SessionLog.create(nodePath.join(dir, 'hand.jsonl'), { id: 'hand', handoffFrom: { sessionId: 'src', leafId: null, title: 'Parser work' } });
    await handoff.close();
    const store = new SessionIndexStore(dir, nodeFileIo);
    const { sessions } = await store.load();
    const byId = new Map(sessions.map((record) => [record.id, record]));
    expect(byId.get('src')).toMatchObject({ title: 'Parser work' });
    expect(byId.get('src')?.untitled).toBeUndefined();
    expect(byId.get('new')).toMatchObject({ title: 'fix the slugify test' });
    expect(byId.get('new')?.untitled).toBeUndefined();
    expect(byId.get('hand')).toMatchObject({ title: 'hand', untitled: true, handoffFrom: 'src' });
  });

  it('keeps the untitled mark through a write and rejects an index whose mark is not a boolean', async () => {
    writeFileSync(nodePath.join(dir, 'a.jsonl'), '');
    const store = new SessionIndexStore(dir, nodeFileIo);
    await store.load();
    await store.upsert({ id: 'a', title: 'New session', file: 'a.jsonl', createdAt: '2025-01-01', updatedAt: '2025-01-01', untitled: true });
    expect((await new SessionIndexStore(dir, nodeFileIo).load()).sessions[0]?.untitled).toBe(true);
    const text = readFileSync(store.indexFile, 'utf8').replace('"untitled": true', '"untitled": "yes"');
    writeFileSync(store.indexFile, text);
    expect((await new SessionIndexStore(dir, nodeFileIo).load()).warnings).toEqual([expect.stringMatching(/partly corrupt; rebuilt 1 refused record/)]);
  });
  it('one refused record costs only itself: every other title and hand-off link is kept, and its session is listed again', async () => {
    for (const id of ['a', 'b', 'c']) {
      const log = await SessionLog.create(nodePath.join(dir, `${id}.jsonl`), { id, title: `Header ${id}` }, { lock: false });
      await log.close();
    }
    const records = [
      { id: 'a', title: 'Renamed A', file: 'a.jsonl', createdAt: '2025-01-01', updatedAt: '2025-01-02' },
      { id: 'b', title: 'Hand-off of A', file: 'b.jsonl', createdAt: '2025-01-01', updatedAt: '2025-01-03', handoffFrom: 'a' },
      { id: 'c', title: 'Refused', file: '../../outside.jsonl', createdAt: '2025-01-01', updatedAt: '2025-01-04' },
    ];
    writeFileSync(nodePath.join(dir, 'index.json'), JSON.stringify({ version: 1, sessions: records }));
    const store = new SessionIndexStore(dir, nodeFileIo);
    const { sessions, warnings } = await store.load();
    expect(warnings).toEqual([expect.stringMatching(/partly corrupt; rebuilt 1 refused record/)]);
    expect(store.get('a')?.title).toBe('Renamed A');
    expect(store.get('b')).toMatchObject({ title: 'Hand-off of A', handoffFrom: 'a' });
    expect(store.get('c')).toMatchObject({ title: 'Header c', file: 'c.jsonl' });
    expect(sessions).toHaveLength(3);
    expect((await new SessionIndexStore(dir, nodeFileIo).load()).warnings).toEqual([]);
  });

  it('two windows renaming at once both keep their rename', async () => {
    for (const id of ['x', 'y']) writeFileSync(nodePath.join(dir, `${id}.jsonl`), '');
    const base = { createdAt: '2025-01-01', updatedAt: '2025-01-01' };
    writeFileSync(nodePath.join(dir, 'index.json'), JSON.stringify({ version: 1, sessions: [{ id: 'x', title: 'X', file: 'x.jsonl', ...base }, { id: 'y', title: 'Y', file: 'y.jsonl', ...base }] }));
    // Each window's write waits until the other has read the index too (or a second): the interleaving that lost a rename.
    let reads = 0;
    const io: FileIo = {
      ...nodeFileIo,
      readFile: async (path) => {
        if (path.endsWith('index.json')) reads++;
        return nodeFileIo.readFile(path);
      },
      writeFileAtomic: async (path, data) => {
        const deadline = Date.now() + 1000;
        while (reads < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
        return nodeFileIo.writeFileAtomic(path, data);
      },
    };
    const first = new SessionIndexStore(dir, io);
    const second = new SessionIndexStore(dir, io);
    await first.load();
    await second.load();
    const later = '2025-02-01T00:00:00.000Z';
    await Promise.all([first.upsert({ ...(first.get('x') as SessionRecord), title: 'X renamed', updatedAt: later }), second.upsert({ ...(second.get('y') as SessionRecord), title: 'Y renamed', updatedAt: later })]);
    const reloaded = new SessionIndexStore(dir, nodeFileIo);
    await reloaded.load();
    expect(reloaded.list().map((record) => record.title).sort()).toEqual(['X renamed', 'Y renamed']);
  });
});

describe('titleFromRequest', () => {
  it('is the request on one line, clipped to 60 characters, and nothing for an empty request', () => {
    expect(titleFromRequest('  fix\n\tthe   test ')).toBe('fix the test');
    expect(titleFromRequest(' \n ')).toBeUndefined();
    const long = titleFromRequest('x'.repeat(100));
    expect(long).toHaveLength(60);
    expect(long?.endsWith('…')).toBe(true);
  });
});
