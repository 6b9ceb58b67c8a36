// Reads only regular, singly linked files (checked on the opened descriptor) and writes by temp file + checked rename.
import { constants, promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { tempPathBeside } from '../storage/tempName';
import { isInside } from './pathSafety';
import { WorkspaceRefusal } from './workspaceAccess';

/** Whole-file reads above this are refused: they would hold the extension host's memory hostage. */
export const MAX_READ_BYTES = 32 * 1024 * 1024;

/** Not in node's constants on Windows, where opening a FIFO this way is not a concern. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Hard links are refused for workspace files (one could be a file outside it); a file the user picked is theirs to send. */
export type HardLinks = 'refuse' | 'allow';

/** Why a file with these stats must not be read or replaced, or undefined when it is an ordinary file. */
export function unsafeFileReason(stats: { isFile(): boolean; isDirectory(): boolean; nlink: number }, hardLinks: HardLinks = 'refuse'): string | undefined {
  if (stats.isDirectory()) return 'it is a folder, not a file';
  if (!stats.isFile()) return 'it is not a regular file (a FIFO, socket or device), which could block forever';
  if (stats.nlink > 1 && hardLinks === 'refuse') {
    return `it has ${stats.nlink} hard links, so it may be the same file as one outside the workspace; it is not read or changed through this path`;
  }
  return undefined;
}

function refuseFile(shown: string, why: string): never {
  throw new WorkspaceRefusal(`Refused ${JSON.stringify(shown.length > 200 ? `${shown.slice(0, 200)}...` : shown)}: ${why}.`);
}

/**
 * Opens a file for reading only if it is a regular, singly linked file of at most `maxBytes`. Opened non-blocking,
 * so a FIFO cannot stall the open, and checked with fstat on that same descriptor, so it cannot be swapped between
 * the check and the read.
 */
async function openRegularFile(absolute: string, shown: string, maxBytes: number, hardLinks: HardLinks = 'refuse'): Promise<fs.FileHandle> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(absolute, constants.O_RDONLY | NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') refuseFile(shown, 'it is a socket, not a file');
    throw error;
  }
  try {
    const stats = await handle.stat();
    const why = unsafeFileReason(stats, hardLinks);
    if (why !== undefined) refuseFile(shown, why);
    if (stats.size > maxBytes) refuseFile(shown, `it is ${megabytes(stats.size)}, more than the ${megabytes(maxBytes)} read at once`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The bytes of a regular, singly linked file (see openRegularFile); `hardLinks: 'allow'` for a file the user picked. */
export async function readRegularFile(absolute: string, shown: string, maxBytes = MAX_READ_BYTES, hardLinks: HardLinks = 'refuse'): Promise<Buffer> {
  const handle = await openRegularFile(absolute, shown, maxBytes, hardLinks);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Refuses (WorkspaceRefusal) unless `absolute` is a regular, singly linked file small enough to read. */
export async function assertRegularFile(absolute: string, shown: string): Promise<void> {
  await (await openRegularFile(absolute, shown, MAX_READ_BYTES)).close();
}

export async function readRegularText(absolute: string, shown: string): Promise<string> {
  return (await readRegularFile(absolute, shown)).toString('utf8');
}

/**
 * Checks, right before a write lands, that `target`'s folder still resolves to itself inside a workspace root and
 * that `target` is absent or an ordinary file, never a symbolic link, special file or hard link.
 */
export async function verifyWriteTarget(target: string, roots: readonly string[], shown: string): Promise<void> {
  const folder = nodePath.dirname(target);
  const realFolder = await fs.realpath(folder);
  if (!(isInside(realFolder, folder) && isInside(folder, realFolder))) {
    refuseFile(shown, 'its folder was replaced by a symbolic link after it was checked');
  }
  const realRoots = await Promise.all(roots.map((root) => fs.realpath(root).catch(() => root)));
  if (!realRoots.some((root) => isInside(root, realFolder))) refuseFile(shown, 'its folder is outside the workspace folders');
  let stats;
  try {
    stats = await fs.lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (stats.isSymbolicLink()) refuseFile(shown, 'it was replaced by a symbolic link after it was checked');
  const why = unsafeFileReason(stats);
  if (why !== undefined) refuseFile(shown, why);
}

/**
 * Writes `text` to a new temp file beside `target`, re-verifies the target, then renames over it: the rename
 * replaces a link rather than following it, so nothing outside the workspace can be written through `target`.
 */
export async function writeFileAtomically(target: string, text: string, roots: readonly string[], shown: string): Promise<void> {
  await verifyWriteTarget(target, roots, shown);
  const previous = await fs.stat(target).catch(() => undefined);
  const temp = tempPathBeside(target, 'agent-tmp');
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
  let renamed = false;
  try {
    try {
      await handle.writeFile(text, 'utf8');
      if (previous !== undefined) await handle.chmod(previous.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await verifyWriteTarget(target, roots, shown);
    await fs.rename(temp, target);
    renamed = true;
  } finally {
    if (!renamed) await fs.rm(temp, { force: true });
  }
}
