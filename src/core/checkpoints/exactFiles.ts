// Reading and writing a file's exact bytes for a restore (any name the file system allows): never through a link, never a FIFO, replaced by rename.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, promises as fs, readSync, type Stats } from 'node:fs';
import * as nodePath from 'node:path';
import { isInside } from '../tools/pathSafety';

const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function shown(path: string | Buffer): string {
  return typeof path === 'string' ? path : path.toString('utf8');
}

/** The file's bytes, or null when there is none; rejects for a link, a folder or a FIFO (never opened blocking). */
export async function readExact(path: string | Buffer): Promise<Buffer | null> {
  let handle;
  try {
    handle = await fs.open(path, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    if (codeOf(error) === 'ELOOP') throw new Error(`${shown(path)} is a symbolic link`);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${shown(path)} is not a regular file`);
    return await handle.readFile();
  } finally {
    await handle.close();
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

function parentOf(path: string | Buffer): string | Buffer {
  if (typeof path === 'string') return nodePath.dirname(path);
  const at = Math.max(path.lastIndexOf(0x2f), nodePath.sep === '\\' ? path.lastIndexOf(0x5c) : -1);
  return at <= 0 ? path.subarray(0, 1) : path.subarray(0, at);
}

function beside(path: string | Buffer): string | Buffer {
  const tag = `.restore-${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  return typeof path === 'string' ? nodePath.join(nodePath.dirname(path), tag) : Buffer.concat([Buffer.from(parentOf(path)), Buffer.from(nodePath.sep), Buffer.from(tag)]);
}

/**
 * Refuses unless the folder `path` is written into resolves (links followed) inside one of `roots`: a folder swapped
 * for a link to elsewhere cannot carry a restore out of the workspace. Folders still to be created are checked
 * through their nearest existing ancestor.
 */
export async function assertWritableInside(path: string | Buffer, roots: readonly string[]): Promise<void> {
  let folder = parentOf(path);
  for (;;) {
    try {
      const real = (await fs.realpath(folder, { encoding: 'buffer' })).toString('utf8');
      const realRoots = await Promise.all(roots.map((root) => fs.realpath(root).catch(() => root)));
      if (!realRoots.some((root) => isInside(root, real))) throw new Error(`${shown(path)} would be written outside the workspace folders (through a link); nothing was written`);
      return;
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
      const up = parentOf(folder);
      if (Buffer.from(up).equals(Buffer.from(folder))) throw error;
      folder = up;
    }
  }
}

/** Replaces (or creates) the file with `data` through a temp file beside it and a rename; a link or folder in its place is refused. Its mode is kept. */
export async function writeExact(path: string | Buffer, data: Buffer): Promise<void> {
  let mode: number | undefined;
  try {
    const stats = await fs.lstat(path);
    if (!stats.isFile()) throw new Error(`${shown(path)} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'} now; nothing was written`);
    mode = stats.mode & 0o7777;
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
  }
  await fs.mkdir(parentOf(path), { recursive: true });
  const temp = beside(path);
  try {
    await fs.writeFile(temp, data, { flag: 'wx', ...(mode !== undefined ? { mode } : {}) });
    if (mode !== undefined) await fs.chmod(temp, mode);
    await fs.rename(temp, path);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Deletes the file; nothing when it is gone already; a link or folder in its place is refused. */
export async function removeExact(path: string | Buffer): Promise<void> {
  try {
    const stats = await fs.lstat(path);
    if (!stats.isFile()) throw new Error(`${shown(path)} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'} now; it was not deleted`);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw error;
  }
  await fs.unlink(path);
}
