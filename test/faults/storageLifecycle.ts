// Fault family (class 4): the snapshot cap at and around its edge, and blob collection that never removes a blob a session still names.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { recordingWorkspace } from '../../src/core/checkpoints/changeRecorder';
import type { FileChange } from '../../src/core/session/entries';
import { collectUnreferencedBlobs } from '../../src/core/storage/blobCollector';
import { BlobStore, blobRefOf } from '../../src/core/storage/blobStore';
import type { WorkspaceAccess } from '../../src/core/tools/workspaceAccess';
import { passed, runCases, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';
import { SeededRandom } from './seededRandom';
import { volatileFileIo } from './volatileFileIo';

const CAP = 64 * 1024;

function memoryWorkspace(files: Map<string, string>): WorkspaceAccess {
  const missing = (): Error => Object.assign(new Error('missing'), { code: 'ENOENT' });
  return {
    roots: () => ['/w'],
    isTrusted: () => true,
    readFile: (path: string) => (files.has(path) ? Promise.resolve(files.get(path) as string) : Promise.reject(missing())),
    stat: (path: string) => (files.has(path) ? Promise.resolve({ type: 'file', size: 0 }) : Promise.reject(missing())),
    writeFile: (path: string, text: string) => Promise.resolve(void files.set(path, text)),
  } as unknown as WorkspaceAccess;
}

/** Texts at and around the cap, in ASCII and in characters of 2, 3 and 4 bytes. */
const EDGE_TEXTS: Array<[string, string]> = [
  ['cap - 1 bytes', 'a'.repeat(CAP - 1)],
  ['cap bytes', 'a'.repeat(CAP)],
  ['cap + 1 bytes', 'a'.repeat(CAP + 1)],
  ['cap bytes of é', 'é'.repeat(CAP / 2)],
  ['cap + 2 bytes of é', 'é'.repeat(CAP / 2 + 1)],
  ['cap chars of €, 3× the bytes', '€'.repeat(CAP)],
  ['cap/4 emoji', '😀'.repeat(CAP / 4)],
  ['cap/4 + 1 emoji', '😀'.repeat(CAP / 4 + 1)],
  ['empty', ''],
  ['20 MB', 'x'.repeat(20 * 1024 * 1024)],
];

function capCases(root: string): HostileCase[] {
  return EDGE_TEXTS.map(([name, text], index) => ({
    name: `snapshot cap: ${name}`,
    run: async () => {
      const outcome = passed();
      const dir = nodePath.join(root, `cap-${index}`);
      const store = new BlobStore(dir, volatileFileIo);
      const changes: FileChange[] = [];
      const notes: string[] = [];
      const files = new Map([['f.txt', 'old']]);
      await recordingWorkspace(memoryWorkspace(files), store, changes, { maxBytes: CAP, notes }).writeFile('f.txt', text);
      const fits = Buffer.byteLength(text, 'utf8') <= CAP;
      const stored = (() => {
        try {
          return readdirSync(dir);
        } catch {
          return [];
        }
      })();
      const storedBytes = stored.reduce((sum, file) => sum + statSync(nodePath.join(dir, file)).size, 0);
      if (storedBytes > CAP + 3) outcome.failures.push(`${storedBytes} bytes stored for one snapshot above the cap`);
      if (fits !== (notes.length === 0)) outcome.failures.push(fits ? 'a file within the cap got a note' : 'a file above the cap got no note');
      if (fits && !stored.includes(nodePath.basename(store.pathOf(blobRefOf(text))))) outcome.failures.push('a file within the cap was not snapshotted');
      if (changes[0]?.after?.sha256 !== blobRefOf(text).sha256) outcome.failures.push('the change does not carry the hash of the new content');
      return outcome;
    },
  }));
}

/** Sessions naming random blobs; some deleted (moved to deleted/ or gone); collection must keep every named blob. */
function collectionCases(root: string): HostileCase[] {
  return Array.from({ length: 20 }, (_, seed) => ({
    name: `collection, seed ${seed}`,
    run: async () => {
      const outcome = passed();
      const random = new SeededRandom(seed + 1);
      const sessions = nodePath.join(root, `collect-${seed}`);
      const blobs = nodePath.join(sessions, 'blobs');
      mkdirSync(nodePath.join(sessions, 'deleted'), { recursive: true });
      mkdirSync(blobs);
      const old = Date.now() / 1000 - 3600;
      const texts = Array.from({ length: 60 }, (_, n) => `blob ${seed} ${n} ${'z'.repeat(random.int(0, 5000))}`);
      for (const text of texts) {
        const path = nodePath.join(blobs, `${blobRefOf(text).sha256}.txt`);
        writeFileSync(path, text);
        if (!random.chance(0.1)) utimesSync(path, old, old);
      }
      const named = new Set<string>();
      for (let session = 0; session < 6; session++) {
        const refs = texts.filter(() => random.chance(0.2)).map((text) => blobRefOf(text));
        const where = random.pick(['live', 'deleted', 'gone'] as const);
        if (where === 'gone') continue;
        for (const ref of refs) named.add(ref.sha256);
        const lines = refs.map((ref, n) => JSON.stringify({ type: 'toolResult', id: `t${n}`, fileChanges: [{ path: 'a', absolute: '/w/a', before: n % 2 ? ref : null, after: n % 2 ? null : ref }] }));
        writeFileSync(nodePath.join(sessions, where === 'live' ? '' : 'deleted', `s${session}.jsonl`), `${JSON.stringify({ type: 'session', version: 1, id: `s${session}` })}\n${lines.join('\n')}\n`);
      }
      const sizes = new Map(texts.map((text) => [blobRefOf(text).sha256, Buffer.byteLength(text)]));
      await collectUnreferencedBlobs(volatileFileIo, sessions, blobs);
      const left = new Set(readdirSync(blobs).map((name) => name.replace(/\.txt$/, '')));
      for (const hash of named) if (!left.has(hash)) outcome.bytesLost += sizes.get(hash) ?? 0;
      const stale = [...left].filter((hash) => !named.has(hash) && statSync(nodePath.join(blobs, `${hash}.txt`)).mtimeMs < Date.now() - 11 * 60 * 1000);
      if (stale.length > 0) outcome.failures.push(`${stale.length} blobs no session names were kept`);
      return outcome;
    },
  }));
}

runFamily('storage lifecycle', async () => {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-lifecycle-'));
  try {
    return await runCases('storage lifecycle', [...capCases(root), ...collectionCases(root)], () => `${EDGE_TEXTS.length} sizes at the cap's edge, 20 seeded collections`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
