// Fault family (class 5): index `file` fields naming anything but a log in the sessions folder, and restores whose shown path is not the written one.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { applyFileRestore, type RestorePort } from '../../src/core/checkpoints/fileCheckpoints';
import { confinedSessionFile } from '../../src/core/session/sessionFiles';
import { SessionIndexStore } from '../../src/core/session/sessionIndex';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { passed, runCases, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';
import { volatileFileIo } from './volatileFileIo';

const VICTIM = 'precious bytes outside the sessions folder';

/** `file` fields a hand-edited or hostile index.json can carry. */
const HOSTILE_FILES = [
  '../victim.jsonl', '../../victim.jsonl', '/abs/victim.jsonl', 'deleted/../../victim.jsonl', 'sub/s.jsonl', '..', '.', '', 'nul\u0000.jsonl',
  'C:\\victim.jsonl', '..\\victim.jsonl', 's.quarantine.jsonl', 'index.json', 'blobs', `${'y'.repeat(300)}.jsonl`, '%2e%2e/victim.jsonl'.replace('%2e%2e', '..'),
  './../victim.jsonl', 'victim.jsonl/..', '\\\\server\\share\\x.jsonl', 'file:///etc/passwd',
];

function indexCases(root: string): HostileCase[] {
  return HOSTILE_FILES.map((file, index) => ({
    name: `index file ${JSON.stringify(file.slice(0, 40))}`,
    run: async () => {
      const outcome = passed();
      const dir = nodePath.join(root, `index-${index}`);
      const sessions = nodePath.join(dir, 'sessions');
      mkdirSync(sessions, { recursive: true });
      const victim = nodePath.join(dir, 'victim.jsonl');
      writeFileSync(victim, VICTIM);
      writeFileSync(nodePath.join(sessions, 'index.json'), JSON.stringify({ version: 1, sessions: [{ id: 'x', title: 'x', file, createdAt: 't', updatedAt: 't' }] }));
      const { sessions: loaded } = await new SessionIndexStore(sessions, volatileFileIo).load();
      if (loaded.some((record) => record.file === file)) outcome.failures.push('the index kept the record');
      let refused = false;
      try {
        confinedSessionFile(sessions, file);
      } catch {
        refused = true;
      }
      if (!refused) outcome.failures.push('confinedSessionFile accepted it');
      if (!existsSync(victim) || readFileSync(victim, 'utf8') !== VICTIM) outcome.bytesLost += VICTIM.length;
      return outcome;
    },
  }));
}

/** Shown path vs written path pairs: each must write nothing. */
const MISMATCHES: Array<[string, string]> = [
  ['src/a.ts', 'src/b.ts'],
  ['src/a.ts', '../outside.txt'],
  ['a.ts', 'sub/a.ts'],
  ['sub/../a.ts', 'b.ts'],
  ['../a.ts', 'a.ts'],
  ['/etc/hosts', 'a.ts'],
  ['a.ts\n', 'a.ts'],
  ['', 'a.ts'],
];

function restoreCases(root: string): HostileCase[] {
  return MISMATCHES.map(([shown, written], index) => ({
    name: `restore shows ${JSON.stringify(shown)}, writes ${JSON.stringify(written)}`,
    run: async () => {
      const outcome = passed();
      const ws = nodePath.join(root, `restore-${index}`, 'ws');
      mkdirSync(nodePath.join(ws, 'src'), { recursive: true });
      mkdirSync(nodePath.join(ws, 'sub'), { recursive: true });
      const absolute = nodePath.resolve(ws, written);
      const before = existsSync(absolute) ? readFileSync(absolute) : undefined;
      if (absolute.startsWith(ws)) writeFileSync(absolute, VICTIM);
      const port: RestorePort = {
        read: (path) => Promise.resolve(existsSync(path) ? readFileSync(path, 'utf8') : null),
        write: (path, text) => Promise.resolve(writeFileSync(path, text)),
        remove: (path) => Promise.resolve(rmSync(path, { force: true })),
      };
      const result = await applyFileRestore([{ path: shown, absolute, target: blobRefOf('hostile'), expected: null, restorable: true }], port, { read: () => Promise.resolve('hostile'), put: (text) => Promise.resolve(blobRefOf(text)) }, [ws]);
      if (result.changes.length > 0) outcome.failures.push('the restore wrote');
      if (result.failed.length !== 1) outcome.failures.push('no failure was reported');
      const now = existsSync(absolute) ? readFileSync(absolute) : undefined;
      const expected = absolute.startsWith(ws) ? Buffer.from(VICTIM) : before;
      if (expected && !now?.equals(expected)) outcome.bytesLost += expected.length;
      return outcome;
    },
  }));
}

runFamily('confined storage', async () => {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-confined-'));
  try {
    return await runCases('confined storage', [...indexCases(root), ...restoreCases(root)], () => `${HOSTILE_FILES.length} index file fields, ${MISMATCHES.length} restore mismatches`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
