// The sessions index: atomic updates, thread keys, and a rebuild from the logs when index.json is corrupt.
import { readFileSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionIndexStore } from '../../src/core/session/sessionIndex';
import { SessionLog } from '../../src/core/session/sessionLog';
import { nodeFileIo } from '../../src/core/storage/fileIo';
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
});
