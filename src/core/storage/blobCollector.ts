// Removes blobs (file snapshots, images, large tool outputs) that no session file in the sessions folder refers to any more.
import * as nodePath from 'node:path';
import { errorCode, type FileIo } from './fileIo';

/** A blob file's name: its sha-256 and `.txt` (see BlobStore.pathOf); anything else in the folder is left alone. */
const BLOB_NAME = /^([0-9a-f]{64})\.txt$/;
/** Any sha-256 a session line names (blob refs in tool results, file changes, restores, images). */
const HASH = /[0-9a-f]{64}/g;
/** Blobs younger than this are kept: a running turn may have stored one whose entry is not appended yet. */
export const BLOB_GRACE_MS = 10 * 60 * 1000;

export interface BlobCollection {
  removed: number;
  bytesFreed: number;
  kept: number;
}

/** Session logs, quarantine files and the logs moved to `deleted/`: every file a blob may still be named in. */
async function referringFiles(io: FileIo, sessionsDir: string): Promise<string[]> {
  const files: string[] = [];
  for (const dir of [sessionsDir, nodePath.join(sessionsDir, 'deleted')]) {
    let names: string[];
    try {
      names = await io.readdir(dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') continue;
      throw error;
    }
    for (const name of names) if (name.endsWith('.jsonl') || name.endsWith('.bak')) files.push(nodePath.join(dir, name));
  }
  return files;
}

/** Every hash named in the files, read one at a time (linear in their bytes). */
async function referencedHashes(io: FileIo, files: readonly string[]): Promise<Set<string>> {
  const hashes = new Set<string>();
  for (const file of files) {
    const text = (await io.readFile(file)).toString('latin1');
    for (const match of text.matchAll(HASH)) hashes.add(match[0]);
  }
  return hashes;
}

/**
 * Deletes every blob in `blobDir` that no session file of `sessionsDir` (nor one in its `deleted/` folder) names,
 * unless it is younger than BLOB_GRACE_MS. Run when a session is deleted: its log moves to the trash, and what
 * only it referred to goes now (restoring that log from the trash by hand brings back its text, not its snapshots).
 */
export async function collectUnreferencedBlobs(io: FileIo, sessionsDir: string, blobDir: string, now = Date.now()): Promise<BlobCollection> {
  const result: BlobCollection = { removed: 0, bytesFreed: 0, kept: 0 };
  let names: string[];
  try {
    names = await io.readdir(blobDir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return result;
    throw error;
  }
  const referenced = await referencedHashes(io, await referringFiles(io, sessionsDir));
  for (const name of names) {
    const hash = BLOB_NAME.exec(name)?.[1];
    if (hash === undefined) continue;
    const path = nodePath.join(blobDir, name);
    if (referenced.has(hash)) {
      result.kept++;
      continue;
    }
    const stat = await io.stat(path).catch(() => undefined);
    if (!stat || now - stat.mtimeMs < BLOB_GRACE_MS) {
      result.kept++;
      continue;
    }
    await io.unlink(path);
    result.removed++;
    result.bytesFreed += stat.size;
  }
  return result;
}
