// Removes blobs (file snapshots, images, large tool outputs) that no session file nor checkpoint index in the sessions folder refers to any more.
import { randomBytes } from 'node:crypto';
import * as nodePath from 'node:path';
import { BLOB_FILE_NAME } from './blobFormat';
import { errorCode, type FileIo } from './fileIo';

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

/** Every hash named in the files, read one at a time (linear in their bytes), added to `hashes`. */
async function referencedHashes(io: FileIo, files: readonly string[], hashes = new Set<string>()): Promise<Set<string>> {
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

interface BlobFile {
  name: string;
  hash: string;
  chunked: boolean;
}

/**
 * Deletes every blob in `blobDir` that no session file of `sessionsDir` (nor one in its `deleted/` folder, nor a
 * checkpoint index) names, unless it is younger than BLOB_GRACE_MS or `inUse` says this process is about to name it.
 * A chunked blob's chunks are named by its list: the lists are judged first, and every chunk a kept list names is
 * kept with it (a chunk no kept list names goes like any blob). Run when a session is deleted: its log moves to the
 * trash, and what only it referred to goes now (restoring that log from the trash by hand brings back its text, not
 * its snapshots).
 */
export async function collectUnreferencedBlobs(io: FileIo, sessionsDir: string, blobDir: string, now = Date.now(), inUse: (sha256: string) => boolean = () => false): Promise<BlobCollection> {
  const result: BlobCollection = { removed: 0, bytesFreed: 0, kept: 0 };
  const names = await namesIn(io, blobDir);
  if (names.length === 0) return result;
  const referenced = await referencedHashes(io, await referringFiles(io, sessionsDir));
  const blobs = names.flatMap((name): BlobFile[] => {
    const match = BLOB_FILE_NAME.exec(name);
    return match ? [{ name, hash: match[1] as string, chunked: match[2] === 'chunks' }] : [];
  });
  const judge = async (blob: BlobFile): Promise<boolean> => {
    const path = nodePath.join(blobDir, blob.name);
    if (referenced.has(blob.hash) || inUse(blob.hash)) return true;
    const stat = await io.stat(path).catch(() => undefined);
    if (!stat || now - stat.mtimeMs < BLOB_GRACE_MS) return true;
    const freed = await removeUnlessYoung(io, path, now);
    if (freed === undefined) return true;
    result.removed++;
    result.bytesFreed += freed;
    return false;
  };
  const keptLists: string[] = [];
  for (const blob of blobs.filter((candidate) => candidate.chunked)) {
    if (!(await judge(blob))) continue;
    result.kept++;
    keptLists.push(nodePath.join(blobDir, blob.name));
  }
  await referencedHashes(io, keptLists, referenced);
  for (const blob of blobs.filter((candidate) => !candidate.chunked)) if (await judge(blob)) result.kept++;
  return result;
}
