// Hostile storage stays confined: an index `file` outside the sessions folder is refused, and a restore whose shown path is not the written one writes nothing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyFileRestore, shownPathMismatch, type RestorePort } from '../../src/core/checkpoints/fileCheckpoints';
import { confinedSessionFile, sessionFileProblem } from '../../src/core/session/sessionFiles';
import { SessionIndexStore } from '../../src/core/session/sessionIndex';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const HOSTILE_FILE_FIELDS = ['../outside.jsonl', '../../home/user/.bashrc', '/etc/passwd', 'C:\\Windows\\x.jsonl', 'sub/dir.jsonl', '..', '.', '', 'a\u0000.jsonl', 'notes.txt', 's.quarantine.jsonl', `${'x'.repeat(300)}.jsonl`, '..\\..\\x.jsonl'];

describe('the index file field', () => {
  for (const file of HOSTILE_FILE_FIELDS) {
    it(`refuses ${JSON.stringify(file.slice(0, 40))}`, () => {
      expect(sessionFileProblem(file)).toBeDefined();
      expect(() => confinedSessionFile(dir, file)).toThrow(/refused/);
    });
  }

  it('accepts a plain log name', () => {
    expect(confinedSessionFile(dir, 'abc-123.jsonl')).toBe(nodePath.join(dir, 'abc-123.jsonl'));
  });

  it('an index naming a file elsewhere is rebuilt from the session files in the folder', async () => {
    const sessions = nodePath.join(dir, 'sessions');
    mkdirSync(sessions);
    writeFileSync(nodePath.join(sessions, 'real.jsonl'), `${JSON.stringify({ type: 'session', version: 1, id: 'real', timestamp: '2025-01-01T00:00:00.000Z' })}\n`);
    const record = { id: 'evil', title: 'evil', file: '../../victim.jsonl', createdAt: 't', updatedAt: 't' };
    writeFileSync(nodePath.join(sessions, 'index.json'), JSON.stringify({ version: 1, sessions: [record] }));
    const { sessions: loaded, warnings } = await new SessionIndexStore(sessions, nodeFileIo).load();
    expect(loaded.map((item) => item.file)).toEqual(['real.jsonl']);
    expect(warnings[0]).toMatch(/corrupt; rebuilt/);
  });
});

describe('a restore whose shown path is not the file written', () => {
  const port: RestorePort = {
    read: (absolute) => Promise.resolve(existsSync(absolute) ? readFileSync(absolute, 'utf8') : null),
    write: (absolute, text) => Promise.resolve(writeFileSync(absolute, text)),
    remove: () => Promise.resolve(),
  };
  const blobs = { read: () => Promise.resolve('restored'), put: (text: string) => Promise.resolve(blobRefOf(text)) };

  it('writes nothing and says which path it would have written', async () => {
    writeFileSync(nodePath.join(dir, 'shown.ts'), 'shown');
    writeFileSync(nodePath.join(dir, 'other.ts'), 'other');
    const item = { path: 'shown.ts', absolute: nodePath.join(dir, 'other.ts'), target: blobRefOf('restored'), expected: null, restorable: true };
    const outcome = await applyFileRestore([item], port, blobs, [dir]);
    expect(outcome.changes).toEqual([]);
    expect(outcome.failed[0]?.reason).toMatch(/shows it as "shown.ts" but would write/);
    expect(readFileSync(nodePath.join(dir, 'other.ts'), 'utf8')).toBe('other');
  });

  it('accepts a path shown relative to any workspace root, or absolute', () => {
    const second = nodePath.join(dir, 'second');
    expect(shownPathMismatch({ path: 'a.ts', absolute: nodePath.join(second, 'a.ts') }, [dir, second])).toBeUndefined();
    expect(shownPathMismatch({ path: nodePath.join(dir, 'a.ts'), absolute: nodePath.join(dir, 'a.ts') }, [dir])).toBeUndefined();
    expect(shownPathMismatch({ path: 'sub/../a.ts', absolute: nodePath.join(dir, 'b.ts') }, [dir])).toMatch(/would write/);
  });
});
