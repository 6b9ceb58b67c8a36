// Fault family 3: ENOSPC during appends, compaction appends, blob writes, index writes and repairs; then space comes back.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import type { CompactionEntry, SessionEntry } from '../../src/core/session/entries';
import { formatLine, parseLog } from '../../src/core/session/logParser';
import type { NewEntry } from '../../src/core/session/newEntry';
import { SessionIndexStore, type SessionRecord } from '../../src/core/session/sessionIndex';
import { SessionLog } from '../../src/core/session/sessionLog';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { errorCode } from '../../src/core/storage/fileIo';
import { messageOf, runFamily, type FamilyResult } from './familyReport';
import { FaultyFileIo, type FailureMode } from './faultyFileIo';
import { fixtureEntries } from './fixtureEntries';
import { quarantinedLines, unreadableQuarantineLines } from './quarantineRecords';

type Check = (condition: boolean, message: string) => void;

interface Case {
  name: string;
  run(dir: string, io: FaultyFileIo, check: Check): Promise<void>;
}

const ids = (entries: readonly SessionEntry[]): string => entries.map((entry) => entry.id).join(',');

async function seeded(dir: string, io: FaultyFileIo): Promise<{ log: SessionLog; file: string }> {
  const file = nodePath.join(dir, 'session.jsonl');
  const log = await SessionLog.create(file, { id: 'disk-full' }, { io, lock: { heartbeatMs: 0 } });
  for (const fields of fixtureEntries().slice(3, 11)) await log.append(fields);
  return { log, file };
}

async function rejectsWithEnospc(action: () => Promise<unknown>, check: Check, what: string): Promise<void> {
  try {
    await action();
    check(false, `${what} resolved although the disk was full`);
  } catch (error) {
    check(errorCode(error) === 'ENOSPC', `${what} rejected with ${messageOf(error)} instead of ENOSPC`);
  }
}

/** An append that hits ENOSPC: rejected, not on the path, the file repairable, and the retry lands exactly once. */
function appendCase(mode: FailureMode, fields: NewEntry, label: string): Case {
  return {
    name: `${label} append (${mode})`,
    async run(dir, io, check) {
      const { log, file } = await seeded(dir, io);
      const before = readFileSync(file);
      const pathBefore = ids(log.path());
      io.failNext('appendDurable', mode, file);
      await rejectsWithEnospc(() => log.append({ ...fields, id: 'failed-1' }), check, 'append');
      check(ids(log.path()) === pathBefore && !log.tree.has('failed-1'), 'failed entry is on the in-memory path');
      const onDisk = readFileSync(file);
      check(onDisk.subarray(0, before.length).equals(before), 'committed bytes changed by a failed append');
      const reader = await SessionLog.open(file, { io, readOnly: true });
      const readIds = ids(reader.log.path());
      // An fsync failure after a complete write may leave the line readable until the writer repairs it.
      check(
        readIds === pathBefore || (mode === 'unsynced' && readIds === `${pathBefore},failed-1`),
        `reader sees ${readIds}`,
      );
      check(
        mode !== 'partial' || reader.warnings.some((warning) => warning.includes('incomplete')),
        'torn tail not reported',
      );
      io.heal();
      await log.append({ ...fields, id: 'failed-1' });
      await log.close();
      const after = parseLog(readFileSync(file), file);
      check(!after.torn && after.corrupt.length === 0, 'file not valid after the retry');
      check(ids(after.entries) === `${pathBefore},failed-1`, `file holds ${ids(after.entries)} after the retry`);
      check(mode === 'none' || quarantinedLines(file).length === 1, 'bytes of the failed append not quarantined');
      check(
        fields.type !== 'compaction' || after.entries.at(-1)?.type === 'compaction',
        'compaction not on the path after the retry',
      );
    },
  };
}

const compaction: NewEntry = {
  type: 'compaction',
  summary: 'Summary: the user asked to port the selector; files read: theme.ts.',
  firstKeptEntryId: null,
  tokensBefore: 120_000,
  tokensAfter: 9_000,
  files: { read: ['theme.ts'], modified: [] },
  edited: false,
  auto: true,
} satisfies Omit<CompactionEntry, 'id' | 'parentId' | 'timestamp'>;

const retryWhileFull: Case = {
  name: 'append, then its repair also hits ENOSPC',
  async run(dir, io, check) {
    const { log, file } = await seeded(dir, io);
    const pathBefore = ids(log.path());
    io.failNext('appendDurable', 'partial', file);
    await rejectsWithEnospc(() => log.append({ type: 'user', text: 'one' }), check, 'append');
    io.failNext('appendDurable', 'none', 'quarantine');
    await rejectsWithEnospc(() => log.append({ type: 'user', text: 'two' }), check, 'append during repair');
    check(ids(log.path()) === pathBefore, 'path changed while the disk was full');
    io.heal();
    const entry = await log.append({ type: 'user', text: 'three' });
    await log.close();
    const after = parseLog(readFileSync(file), file);
    check(
      !after.torn && after.corrupt.length === 0 && ids(after.entries) === `${pathBefore},${entry.id}`,
      'file inconsistent after space came back',
    );
  },
};

function blobCase(mode: FailureMode): Case {
  return {
    name: `blob write (${mode})`,
    async run(dir, io, check) {
      const { log } = await seeded(dir, io);
      const text = fixtureEntries()
        .filter((entry) => entry.type === 'toolResult')
        .map((entry) => (entry.type === 'toolResult' ? entry.content : ''))
        .join('\n')
        .slice(0, 300_000);
      io.failNext('writeFileAtomic', mode, 'blobs');
      await rejectsWithEnospc(() => log.blobs.put(text), check, 'blob put');
      const ref = blobRefOf(text);
      check(!(await log.blobs.has(ref)), 'a failed blob write left a blob that claims to be complete');
      check(!existsSync(log.blobs.pathOf(ref)), 'a failed blob write left a file at the blob path');
      io.heal();
      const stored = await log.blobs.put(text);
      check((await log.blobs.read(stored)) === text, 'blob read back differs after the retry');
      await log.close();
    },
  };
}

function indexCase(mode: FailureMode): Case {
  const record = (id: string): SessionRecord => ({
    id,
    title: `t ${id}`,
    file: `${id}.jsonl`,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
  });
  return {
    name: `index write (${mode})`,
    async run(dir, io, check) {
      // A record lives as long as its log file (the index drops records whose file is gone), so the logs exist.
      mkdirSync(dir, { recursive: true });
      for (const id of ['one', 'two', 'three']) writeFileSync(nodePath.join(dir, `${id}.jsonl`), '');
      const store = new SessionIndexStore(dir, io);
      await store.load();
      await store.upsert(record('one'));
      const before = readFileSync(store.indexFile);
      io.failNext('writeFileAtomic', mode, 'index.json');
      await rejectsWithEnospc(() => store.upsert(record('two')), check, 'index upsert');
      check(readFileSync(store.indexFile).equals(before), 'index.json changed by a failed atomic write');
      const fresh = await new SessionIndexStore(dir, io).load();
      check(
        fresh.warnings.length === 0 && fresh.sessions.map((item) => item.id).join() === 'one',
        'old index not intact',
      );
      io.heal();
      await store.upsert(record('three'));
      const healed = await new SessionIndexStore(dir, io).load();
      check(
        healed.sessions
          .map((item) => item.id)
          .sort()
          .join() === 'one,three,two',
        'retry did not persist the index',
      );
    },
  };
}

/** Repairs on load need space too: when they fail, load fails clearly and nothing is cut before it is quarantined. */
function repairCase(kind: 'torn' | 'corrupt'): Case {
  return {
    name: `repair on load (${kind} line)`,
    async run(dir, io, check) {
      const { log, file } = await seeded(dir, io);
      await log.close();
      const bad = kind === 'torn' ? '{"type":"user","id":"to' : 'not json at all\n';
      const good = formatLine({
        type: 'user',
        id: 'after-bad',
        parentId: null,
        timestamp: '2025-01-01T00:00:00.000Z',
        text: 'x',
      });
      writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from(kind === 'torn' ? bad : bad + good)]));
      const damaged = readFileSync(file);
      io.failNext(
        kind === 'torn' ? 'appendDurable' : 'writeFileAtomic',
        'partial',
        kind === 'torn' ? 'quarantine' : file,
      );
      await rejectsWithEnospc(() => SessionLog.open(file, { io }), check, 'open');
      check(readFileSync(file).equals(damaged), 'a failed repair changed the session file');
      io.heal();
      const reopened = await SessionLog.open(file, { io });
      await reopened.log.close();
      check(
        quarantinedLines(file).some((line) => line.raw.toString('utf8') === bad),
        'bad line not quarantined after the retry',
      );
      check(
        unreadableQuarantineLines(file) === 0,
        'quarantine file has an unreadable record (a torn record was appended to)',
      );
      check(parseLog(readFileSync(file), file).corrupt.length === 0, 'file not clean after the retry');
    },
  };
}

const lockCase: Case = {
  name: 'lock file write',
  async run(dir, io, check) {
    const { log, file } = await seeded(dir, io);
    await log.close();
    io.failNext('createExclusive', 'partial', '.lock');
    await rejectsWithEnospc(() => SessionLog.open(file, { io }), check, 'open');
    io.heal();
    const reopened = await SessionLog.open(file, { io, lock: { heartbeatMs: 0 } });
    check(reopened.log.path().length === 8, 'session not loadable after the lock write failed');
    await reopened.log.close();
  },
};

const CASES: Case[] = [
  ...(['none', 'partial', 'unsynced'] as const).map((mode) =>
    appendCase(mode, fixtureEntries()[20] ?? { type: 'user', text: 'x' }, 'message'),
  ),
  ...(['none', 'partial', 'unsynced'] as const).map((mode) => appendCase(mode, compaction, 'compaction')),
  retryWhileFull,
  blobCase('none'),
  blobCase('partial'),
  indexCase('none'),
  indexCase('partial'),
  repairCase('torn'),
  repairCase('corrupt'),
  lockCase,
];

async function run(): Promise<FamilyResult> {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-diskfull-'));
  const failures: string[] = [];
  let inconsistent = 0;
  try {
    for (const [index, testCase] of CASES.entries()) {
      const problems: string[] = [];
      const io = new FaultyFileIo();
      try {
        await testCase.run(nodePath.join(root, `case-${index}`), io, (ok, message) => {
          if (!ok) problems.push(message);
        });
        if (io.fired === 0) problems.push('the fault never fired');
      } catch (error) {
        problems.push(`exception: ${messageOf(error)}`);
      }
      if (problems.length > 0) inconsistent++;
      for (const problem of problems) failures.push(`${testCase.name}: ${problem}`);
    }
    return { line: `disk-full: ${CASES.length} cases, ${inconsistent} inconsistent`, failures };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runFamily('disk-full', run);
