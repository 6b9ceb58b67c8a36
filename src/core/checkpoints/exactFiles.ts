// Reading and writing a file's exact bytes and mode for a restore (any name the file system allows): through folders opened without following links, never a FIFO, replaced by rename.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, promises as fs, readSync, type Stats } from 'node:fs';
import * as nodePath from 'node:path';
import { isInside } from '../tools/pathSafety';
import { MAX_READ_BYTES, unsafeFileReason } from '../tools/safeFileIo';
import { ConfinementRefusal, withFolder, type FolderHandle } from './folderHandles';

const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** A file's bytes and permission bits, read through one descriptor. */
export interface ExactFile {
  data: Buffer;
  /** The permission bits (mode & 0o7777). */
  mode: number;
}

/** Where a path lies: the workspace folder it is below, and its names below that folder (the last is the file's). */
interface Below {
  root: string;
  folders: Buffer[];
  name: Buffer;
  shown: string;
}

/**
 * Splits `path` (an absolute path, or its exact bytes) into the workspace folder it lies below and the names under
 * it; refuses a path outside every folder, or one with an empty, `.` or `..` name.
 */
function below(path: string | Buffer, roots: readonly string[]): Below {
  const bytes = Buffer.from(path);
  const shown = bytes.toString('utf8');
  const separators = nodePath.sep === '\\' ? [0x2f, 0x5c] : [0x2f];
  // Where the file system folds case, so does the comparison with the folder (a drive letter, say).
  const fold = process.platform === 'win32' || process.platform === 'darwin' ? (text: string): string => text.toLowerCase() : (text: string): string => text;
  const candidates = roots.filter((root) => {
    const prefix = Buffer.from(root.endsWith(nodePath.sep) ? root : `${root}${nodePath.sep}`);
    return bytes.length > prefix.length && (bytes.subarray(0, prefix.length).equals(prefix) || fold(bytes.subarray(0, prefix.length).toString('utf8')) === fold(prefix.toString('utf8')));
  });
  const root = candidates.sort((a, b) => b.length - a.length)[0];
  if (root === undefined) throw new ConfinementRefusal(`${shown} is outside the workspace folders; nothing was written`);
  const rest = bytes.subarray(Buffer.byteLength(root.endsWith(nodePath.sep) ? root : `${root}${nodePath.sep}`));
  const names: Buffer[] = [];
  let start = 0;
  for (let at = 0; at <= rest.length; at++) {
    if (at < rest.length && !separators.includes(rest[at] as number)) continue;
    names.push(rest.subarray(start, at));
    start = at + 1;
  }
  if (names.some((name) => name.length === 0 || name.equals(Buffer.from('.')) || name.equals(Buffer.from('..')))) throw new ConfinementRefusal(`${shown} climbs out of its workspace folder; nothing was written`);
  return { root, folders: names.slice(0, -1), name: names.at(-1) as Buffer, shown };
}

/** True for "a folder on the way is missing". */
function isMissing(error: unknown): boolean {
  return codeOf(error) === 'ENOENT';
}

/**
 * The file's bytes and mode, or null when there is none: read from the folders below its workspace folder opened
 * without following links (a folder swapped for a link to elsewhere is refused, nothing of it read). Rejects for a
 * link, a folder or a FIFO in the file's place.
 */
export async function readExact(path: string | Buffer, roots: readonly string[]): Promise<ExactFile | null> {
  const place = below(path, roots);
  try {
    return await withFolder(place.root, place.folders, false, async (folder) => {
      const handle = await folder.openEntry(place.name, constants.O_RDONLY | NONBLOCK).catch((error: unknown) => {
        if (codeOf(error) === 'ELOOP') throw new ConfinementRefusal(`${place.shown} is a symbolic link`);
        throw error;
      });
      try {
        const stats = await handle.stat();
        if (!stats.isFile()) throw new Error(`${place.shown} is not a regular file`);
        return { data: await handle.readFile(), mode: stats.mode & 0o7777 };
      } finally {
        await handle.close();
      }
    });
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * The bytes of a small regular file read synchronously, and its stats then: opened without following a link and
 * without blocking (a FIFO or device never hangs the walk), checked on the descriptor; undefined for anything else,
 * for a file above `maxBytes`, or when it cannot be read.
 */
export function readSmallRegularFile(path: string | Buffer, maxBytes: number): { data: Buffer; stat: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const data = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < data.length) {
      const count = readSync(fd, data, read, data.length - read, read);
      if (count === 0) break;
      read += count;
    }
    return { data: read === data.length ? data : data.subarray(0, read), stat };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A temp name in the file's folder (a dot, a random tag: never longer than a name may be). */
function tempName(kind: string): Buffer {
  return Buffer.from(`.restore-${process.pid}-${randomBytes(6).toString('hex')}.${kind}`);
}

/** The entry `name` when it is a regular file, undefined when there is none; refuses a link or a folder in its place. */
async function regularEntry(folder: FolderHandle, name: Buffer, shown: string, doing: string): Promise<Stats | undefined> {
  const stats = await folder.entryStat(name);
  if (stats && !stats.isFile()) throw new ConfinementRefusal(`${shown} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'} now; ${doing}`);
  return stats;
}

/**
 * Replaces (or creates) the file with `data`, through a temp file in the same folder and a rename there; the
 * folders below its workspace folder are opened (or created) without following links, so a folder swapped for a
 * link to elsewhere gets nothing written. The file gets `mode` when given, else keeps its own (a new file: the
 * default). The temp file is created readable by its owner only and given its mode before it is renamed.
 */
export async function writeExact(path: string | Buffer, data: Buffer, roots: readonly string[], mode?: number): Promise<void> {
  const place = below(path, roots);
  await withFolder(place.root, place.folders, true, async (folder) => {
    const existing = await regularEntry(folder, place.name, place.shown, 'nothing was written');
    const final = mode ?? (existing ? existing.mode & 0o7777 : undefined);
    const temp = tempName('tmp');
    const handle = await folder.openEntry(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, final === undefined ? 0o666 : 0o600);
    let renamed = false;
    try {
      try {
        await handle.writeFile(data);
        if (final !== undefined) await handle.chmod(final);
      } finally {
        await handle.close();
      }
      await folder.rename(temp, place.name);
      renamed = true;
    } finally {
      if (!renamed) await folder.discard(temp);
    }
  });
}

/** Deletes the file (nothing when it is gone already) in its folder opened without following links; a link or folder in its place is refused. */
export async function removeExact(path: string | Buffer, roots: readonly string[]): Promise<void> {
  const place = below(path, roots);
  try {
    await withFolder(place.root, place.folders, false, async (folder) => {
      const existing = await regularEntry(folder, place.name, place.shown, 'it was not deleted');
      if (existing) await folder.remove(place.name, existing, tempName('deleted'));
    });
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/**
 * The text of a file a file tool wrote, read for a restore: opened by its path (a link inside the workspace is
 * followed, as the file tools follow it), then checked on the descriptor: a regular file, and still the file at
 * its real path inside the workspace folders. A folder swapped for a link to elsewhere while it was opened fails
 * that check, and nothing of the file is read. Null when there is none.
 */
export async function readTextInside(path: string, roots: readonly string[]): Promise<string | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, constants.O_RDONLY | NONBLOCK);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  try {
    const stats = await handle.stat();
    const why = unsafeFileReason(stats) ?? (stats.size > MAX_READ_BYTES ? `it is larger than ${MAX_READ_BYTES / 1024 / 1024} MB` : undefined);
    if (why !== undefined) throw new Error(`${path} cannot be read: ${why}`);
    const real = await fs.realpath(path);
    const realRoots = await Promise.all(roots.map((root) => fs.realpath(root).catch(() => root)));
    const there = await fs.stat(real);
    if (!realRoots.some((root) => isInside(root, real)) || there.dev !== stats.dev || there.ino !== stats.ino) {
      throw new ConfinementRefusal(`${path} is not inside the workspace folders now (a folder on its path was replaced); nothing was read`);
    }
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}
