// Removes blobs (file snapshots, images, large tool outputs) that no session file nor checkpoint index in the sessions folder refers to any more.
import { randomBytes } from 'node:crypto';
import * as nodePath from 'node:path';
import { errorCode, type FileIo } from './fileIo';

/** A blob file's name: its sha-256 and `.txt` (see BlobStore.pathOf); anything else in the folder is left alone. */
const BLOB_NAME = /^([0-9a-f]{64})\.txt$/;
/** Any sha-256 a session line names (blob refs in tool results, file changes, restores, images). */
const HASH = /[0-9a-f]{64}/g;
/** Blobs younger than this are kept: a running turn may have stored (or reused) one whose entry is not appended yet. */
export const BLOB_GRACE_MS = 10 * 60 * 1000;
/**
 * The folder (inside the sessions folder) of the command checkpoints' file indexes: each names the content of every
 * file of one workspace folder as last snapshotted, which the next command's restore may need.
 */
export const SNAPSHOT_INDEX_DIR = 'checkpoints';
/** A checkpoint index file's name ends so. */
export const SNAPSHOT_INDEX_SUFFIX = '.index';

export interface BlobCollection {
  removed: number;
  bytesFreed: number;
  kept: number;
}

async function namesIn(io: FileIo, dir: string): Promise<string[]> {
  try {
    return await io.readdir(dir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}

/** Session logs, quarantine files, the logs moved to `deleted/` and the checkpoint indexes: every file a blob may still be named in. */
async function referringFiles(io: FileIo, sessionsDir: string): Promise<string[]> {
  const files: string[] = [];
  for (const dir of [sessionsDir, nodePath.join(sessionsDir, 'deleted')]) {
    for (const name of await namesIn(io, dir)) if (name.endsWith('.jsonl') || name.endsWith('.bak')) files.push(nodePath.join(dir, name));
  }
  const indexes = nodePath.join(sessionsDir, SNAPSHOT_INDEX_DIR);
  for (const name of await namesIn(io, indexes)) if (name.endsWith(SNAPSHOT_INDEX_SUFFIX)) files.push(nodePath.join(indexes, name));
  return files;
}

/** Every hash named in the files, read one at a time (linear in their bytes). */
async function referencedHashes(io: FileIo, files: readonly string[]): Promise<Set<string>> {
  const hashes = new Set<string>();
  for (const file of files) {
    let text: string;
    try {
      text = (await io.readFile(file)).toString('latin1');
    } catch (error) {
      // Replaced or removed by another window meanwhile: its successor is read in the next collection.
      if (errorCode(error) === 'ENOENT') continue;
      throw error;
    }
    for (const match of text.matchAll(HASH)) hashes.add(match[0]);
  }
  return hashes;
}

/**
 * Removes one blob unless it became young meanwhile: it is moved aside first, so a writer that marks it as in use
 * (BlobStore.keep touches it) either does so before the move (then it is seen young and moved back) or finds it
 * gone and stores it again. Resolves to the bytes freed, or undefined when it was kept.
 */
async function removeUnlessYoung(io: FileIo, path: string, now: number): Promise<number | undefined> {
  const aside = `${path}.collect-${randomBytes(4).toString('hex')}`;
  try {
    await io.rename(path, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 0;
    throw error;
  }
  const stat = await io.stat(aside);
  if (now - stat.mtimeMs < BLOB_GRACE_MS) {
    await io.rename(aside, path);
    return undefined;
  }
  await io.unlink(aside);
  return stat.size;
}

/**
 * Deletes every blob in `blobDir` that no session file of `sessionsDir` (nor one in its `deleted/` folder, nor a
 * checkpoint index) names, unless it is younger than BLOB_GRACE_MS or `inUse` says this process is about to name it.
 * Run when a session is deleted: its log moves to the trash, and what only it referred to goes now (restoring that
 * log from the trash by hand brings back its text, not its snapshots).
 */
export async function collectUnreferencedBlobs(io: FileIo, sessionsDir: string, blobDir: string, now = Date.now(), inUse: (sha256: string) => boolean = () => false): Promise<BlobCollection> {
  const result: BlobCollection = { removed: 0, bytesFreed: 0, kept: 0 };
  const names = await namesIn(io, blobDir);
  if (names.length === 0) return result;
  const referenced = await referencedHashes(io, await referringFiles(io, sessionsDir));
  for (const name of names) {
    const hash = BLOB_NAME.exec(name)?.[1];
    if (hash === undefined) continue;
    const path = nodePath.join(blobDir, name);
    if (referenced.has(hash) || inUse(hash)) {
      result.kept++;
      continue;
    }
    const stat = await io.stat(path).catch(() => undefined);
    if (!stat || now - stat.mtimeMs < BLOB_GRACE_MS) {
      result.kept++;
      continue;
    }
    const freed = await removeUnlessYoung(io, path, now);
    if (freed === undefined) {
      result.kept++;
      continue;
    }
    result.removed++;
    result.bytesFreed += freed;
  }
  return result;
}
