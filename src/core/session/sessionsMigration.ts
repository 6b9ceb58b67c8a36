// Moves the sessions of a storage folder into the one every window of the workspace shares, losing nothing: a log
// another window still writes waits for a later move, and its blobs stay where it reads them until it has gone.
import * as nodePath from 'node:path';
import { errorCode, type FileIo } from '../storage/fileIo';
import { SessionLock, SessionLockedError, type LockOptions } from '../storage/sessionLock';
import { type SessionRecord, SessionIndexStore } from './sessionIndex';
import { lockPath } from './sessionLog';

export interface SessionsMigration {
  /** Logs moved (with their quarantine and count files and their index records). */
  moved: number;
  /** Logs another window holds open: they stay, and a later migration moves them. */
  waiting: number;
  /** Files found in both folders with different content: the moved one took a new name (the index follows it). */
  renamed: number;
}

/** Files kept beside a log, named after it. */
const COMPANIONS = ['.quarantine.jsonl', '.counts.json'];
/** Folders of shared content: content-addressed blobs, folder snapshot indexes, logs deleted to the folder. */
const SHARED_FOLDERS = ['blobs', 'checkpoints', 'deleted'];
/** A migration marker older than this was left by a window that died while migrating. */
const GUARD_STALE_MS = 60_000;

const NOTHING: SessionsMigration = { moved: 0, waiting: 0, renamed: 0 };

function isLog(name: string): boolean {
  return name.endsWith('.jsonl') && !name.endsWith('.quarantine.jsonl');
}

async function listing(io: FileIo, dir: string): Promise<string[] | undefined> {
  try {
    return await io.readdir(dir);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function sameContent(io: FileIo, a: string, b: string): Promise<boolean> {
  const [left, right] = await Promise.all([io.readFile(a), io.readFile(b)]);
  return left.equals(right);
}

/** Renames, or (across file systems) copies durably and then removes the source. */
async function moveFile(io: FileIo, from: string, to: string): Promise<void> {
  await io.mkdirp(nodePath.dirname(to));
  try {
    await io.rename(from, to);
  } catch (error) {
    if (errorCode(error) !== 'EXDEV') throw error;
    await io.writeFileAtomic(to, await io.readFile(from));
    await io.unlink(from);
  }
}

/** The session records of the old folder's index.json by log file name (none when it is missing or unreadable). */
async function oldRecords(io: FileIo, dir: string): Promise<Map<string, SessionRecord>> {
  const byFile = new Map<string, SessionRecord>();
  try {
    const parsed = JSON.parse((await io.readFile(nodePath.join(dir, 'index.json'))).toString('utf8')) as { sessions?: unknown };
    for (const record of Array.isArray(parsed.sessions) ? parsed.sessions : []) {
      const candidate = record as Partial<SessionRecord>;
      if (typeof candidate.file === 'string' && typeof candidate.id === 'string') byFile.set(candidate.file, record as SessionRecord);
    }
  } catch {
    // The target index lists a log without a record from its header, as a rebuilt index does.
  }
  return byFile;
}

/**
 * Copies (while logs stay behind that may name them) or moves the files of `from` that `to` lacks; a file both have
 * under one name is the same content (blobs are named by their hash), so the source's is left or removed.
 */
async function transferTree(io: FileIo, from: string, to: string, move: boolean): Promise<void> {
  const names = await listing(io, from);
  if (!names) return;
  for (const name of names) {
    const source = nodePath.join(from, name);
    const target = nodePath.join(to, name);
    if ((await listing(io, source)) !== undefined) {
      await transferTree(io, source, target, move);
      continue;
    }
    if (await io.exists(target)) {
      if (move) await io.unlink(source);
      continue;
    }
    if (move) await moveFile(io, source, target);
    else {
      await io.mkdirp(to);
      await io.writeFileAtomic(target, await io.readFile(source));
    }
  }
}

/**
 * Moves the sessions of `from` (a sessions folder) into `to` (another), one log at a time under its own lock, so a log
 * a window still writes is never moved under it. Index records keep their titles and chat-thread keys. Run by every
 * window at start: a folder being migrated by another window is left to it (`waiting` counts it).
 */
export async function migrateSessions(io: FileIo, from: string, to: string, lock: LockOptions = {}): Promise<SessionsMigration> {
  const names = await listing(io, from);
  if (!names || nodePath.resolve(from) === nodePath.resolve(to)) return NOTHING;
  const guard = nodePath.join(from, '.migrating');
  if (!(await io.createExclusive(guard, String(process.pid), { durable: false }))) {
    const age = await io.stat(guard).then((stat) => Date.now() - stat.mtimeMs, () => 0);
    if (age <= GUARD_STALE_MS) return { ...NOTHING, waiting: names.filter(isLog).length };
    await io.unlink(guard).catch(() => undefined);
    return migrateSessions(io, from, to, lock);
  }
  try {
    await io.mkdirp(to);
    const records = await oldRecords(io, from);
    const index = new SessionIndexStore(to, io);
    await index.load();
    const result = { moved: 0, waiting: 0, renamed: 0 };
    for (const name of names.filter(isLog)) {
      const file = nodePath.join(from, name);
      let held: SessionLock;
      try {
        held = await SessionLock.acquire(lockPath(file), name, io, { ...lock, heartbeatMs: 0 });
      } catch (error) {
        if (!(error instanceof SessionLockedError)) throw error;
        result.waiting++;
        continue;
      }
      try {
        const moved = await moveLog(io, from, to, name);
        if (moved.renamed) result.renamed++;
        const record = records.get(name);
        if (record && !index.get(record.id)) await index.upsert({ ...record, file: moved.name });
        result.moved++;
      } finally {
        await held.release();
      }
    }
    // Blobs named by a log that waits here stay readable here: copied now, moved with the last log.
    for (const folder of SHARED_FOLDERS) await transferTree(io, nodePath.join(from, folder), nodePath.join(to, folder), result.waiting === 0);
    if (result.waiting === 0) await io.unlink(nodePath.join(from, 'index.json')).catch(() => undefined);
    await index.refresh();
    return result;
  } finally {
    await io.unlink(guard).catch(() => undefined);
  }
}

/** Moves one log and its companions; a different file of the same name in `to` makes the moved one take a new name. */
async function moveLog(io: FileIo, from: string, to: string, name: string): Promise<{ name: string; renamed: boolean }> {
  const stem = name.replace(/\.jsonl$/, '');
  const target = nodePath.join(to, name);
  let targetStem = stem;
  let renamed = false;
  if (await io.exists(target)) {
    if (await sameContent(io, nodePath.join(from, name), target)) {
      // Moved before (a migration cut short after the move): the source is a copy.
      for (const suffix of ['.jsonl', ...COMPANIONS]) await io.unlink(nodePath.join(from, `${stem}${suffix}`)).catch(() => undefined);
      return { name, renamed: false };
    }
    targetStem = `${stem}-moved-${Date.now().toString(36)}`;
    renamed = true;
  }
  // Companions first: the log's arrival is what lists the session in the target.
  for (const suffix of COMPANIONS) {
    const companion = nodePath.join(from, `${stem}${suffix}`);
    if (await io.exists(companion)) await moveFile(io, companion, nodePath.join(to, `${targetStem}${suffix}`));
  }
  await moveFile(io, nodePath.join(from, name), nodePath.join(to, `${targetStem}.jsonl`));
  return { name: `${targetStem}.jsonl`, renamed };
}
