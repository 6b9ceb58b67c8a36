// Folders of a workspace opened one name at a time without following links, so what a restore reads and writes cannot be steered elsewhere: on Linux each name is resolved from an open folder descriptor (/proc/self/fd: openat's equivalent), elsewhere every folder is checked again after it is opened and before each write lands.
import { constants, promises as fs, statSync, type Stats } from 'node:fs';
import * as nodePath from 'node:path';

const DIRECTORY = constants.O_DIRECTORY ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Node has no openat; on Linux a path through /proc/self/fd/N is one: the kernel starts from folder N itself, whatever its path names now. */
const PROC_FDS = ((): boolean => {
  if (process.platform !== 'linux') return false;
  try {
    return statSync('/proc/self/fd').isDirectory();
  } catch {
    return false;
  }
})();

let throughDescriptors = PROC_FDS;

/**
 * Whether folders are reached through their descriptors (where the platform allows) or by paths checked again after
 * each open (the way on other platforms); tests run both. Returns the previous choice.
 */
export function reachFoldersThroughDescriptors(enabled: boolean): boolean {
  const previous = throughDescriptors;
  throughDescriptors = enabled && PROC_FDS;
  return previous;
}

/** True when folders are reached through their descriptors (Linux with /proc), false where they are reached by checked paths. */
export function reachesFoldersThroughDescriptors(): boolean {
  return throughDescriptors;
}

/** Why a restore refuses a path, in words; nothing was read or written. */
export class ConfinementRefusal extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'ConfinementRefusal';
  }
}

/** One folder of the chain as it was opened: its path (for messages and the fallback) and its identity. */
interface Level {
  path: Buffer;
  dev: number;
  ino: number;
}

function sameFolder(level: Level, stat: Stats): boolean {
  return stat.isDirectory() && stat.dev === level.dev && stat.ino === level.ino;
}

function join(folder: Buffer, name: Buffer): Buffer {
  return Buffer.concat([folder, Buffer.from(nodePath.sep), name]);
}

/**
 * A folder below a workspace root reached without following any link, and the operations a restore makes on its
 * entries. Through the folder's descriptor where the platform allows, nothing a racing process renames can change
 * what a call names. Elsewhere each call goes by the checked path and is checked again after it lands (every
 * folder from the root still the one opened, the entry still the one opened): a file created through a swapped
 * folder is removed again, and a file is deleted by renaming it aside first, so a swap can at worst leave a file
 * renamed (see RELIABILITY.md).
 */
export class FolderHandle {
  private constructor(
    private readonly levels: readonly Level[],
    private readonly handle: fs.FileHandle | undefined,
  ) {}

  /** Opens the workspace folder itself (a link to it is followed: the walk follows it too). */
  static async openRoot(root: string): Promise<FolderHandle> {
    const path = Buffer.from(root);
    if (!throughDescriptors) {
      const stat = await fs.stat(path);
      if (!stat.isDirectory()) throw new ConfinementRefusal(`${root} is not a folder`);
      return new FolderHandle([{ path, dev: stat.dev, ino: stat.ino }], undefined);
    }
    const handle = await fs.open(path, constants.O_RDONLY | DIRECTORY);
    const stat = await handle.stat();
    return new FolderHandle([{ path, dev: stat.dev, ino: stat.ino }], handle);
  }

  private get shown(): Buffer {
    return (this.levels.at(-1) as Level).path;
  }

  /** The path naming `name` in this folder for one system call. */
  private pathOf(name: Buffer): Buffer {
    if (this.handle) return join(Buffer.from(`/proc/self/fd/${this.handle.fd}`), name);
    return join(this.shown, name);
  }

  /**
   * By path: refuses unless every folder from the root is still the one opened (same device and inode, still a
   * folder, not a link) and, given `entry`, the entry `name` is still that file. Through descriptors: nothing to check.
   */
  private async verify(name?: Buffer, entry?: Stats): Promise<void> {
    if (this.handle) return;
    for (const [depth, level] of this.levels.entries()) {
      const stat = await (depth === 0 ? fs.stat(level.path) : fs.lstat(level.path)).catch(() => undefined);
      if (!stat || !sameFolder(level, stat)) throw new ConfinementRefusal(`the folder ${level.path.toString('utf8')} was replaced while the restore ran; nothing was read or written there`);
    }
    if (name && entry) {
      const now = await fs.lstat(this.pathOf(name)).catch(() => undefined);
      if (!now || now.dev !== entry.dev || now.ino !== entry.ino) throw new ConfinementRefusal(`${join(this.shown, name).toString('utf8')} was replaced while the restore ran; nothing was read or written`);
    }
  }

  /** The subfolder `name`, never through a link; created first when `create` and missing. */
  async child(name: Buffer, create: boolean): Promise<FolderHandle> {
    const path = this.pathOf(name);
    const shown = join(this.shown, name);
    if (create) {
      const made = await fs.mkdir(path).then(
        () => true,
        (error: unknown) => {
          if (codeOf(error) !== 'EEXIST') throw error;
          return false;
        },
      );
      if (made) {
        try {
          await this.verify();
        } catch (error) {
          // By path, a folder made through a swapped folder is taken back (it is empty: rmdir removes nothing else).
          await fs.rmdir(path).catch(() => undefined);
          throw error;
        }
      }
    }
    const refuse = (): never => {
      throw new ConfinementRefusal(`${shown.toString('utf8')} is not a folder (a link or a file in its place); nothing was written`);
    };
    if (!this.handle) {
      const stat = await fs.lstat(path);
      if (!stat.isDirectory()) refuse();
      const next = new FolderHandle([...this.levels, { path: shown, dev: stat.dev, ino: stat.ino }], undefined);
      await next.verify();
      return next;
    }
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(path, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
    } catch (error) {
      if (codeOf(error) === 'ELOOP' || codeOf(error) === 'ENOTDIR') refuse();
      throw error;
    }
    const stat = await handle.stat();
    return new FolderHandle([...this.levels, { path: shown, dev: stat.dev, ino: stat.ino }], handle);
  }

  /** lstat of the entry `name` (undefined when there is none). */
  async entryStat(name: Buffer): Promise<Stats | undefined> {
    return fs.lstat(this.pathOf(name)).catch((error: unknown) => {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    });
  }

  /**
   * Opens the entry `name` (never through a link: O_NOFOLLOW) and checks it is still there once open; a file this
   * open created (O_CREAT) is removed again when the check fails. The caller closes the handle.
   */
  async openEntry(name: Buffer, flags: number, mode?: number): Promise<fs.FileHandle> {
    const handle = await fs.open(this.pathOf(name), flags | NOFOLLOW, mode);
    try {
      await this.verify(name, await handle.stat());
      return handle;
    } catch (error) {
      await handle.close();
      if (flags & constants.O_CREAT) await fs.rm(this.pathOf(name), { force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** Renames the entry `from` to `to` within this folder (replacing `to`; a link there is replaced, never followed). */
  async rename(from: Buffer, to: Buffer): Promise<void> {
    await this.verify();
    await fs.rename(this.pathOf(from), this.pathOf(to));
  }

  /** Deletes the entry `name`, the file `entry` describes; by path it is renamed aside first and checked there. */
  async remove(name: Buffer, entry: Stats, aside: Buffer): Promise<void> {
    if (this.handle) {
      await fs.unlink(this.pathOf(name));
      return;
    }
    await this.verify(name, entry);
    await fs.rename(this.pathOf(name), this.pathOf(aside));
    try {
      await this.verify(aside, entry);
    } catch (error) {
      await fs.rename(this.pathOf(aside), this.pathOf(name)).catch(() => undefined);
      throw error;
    }
    await fs.unlink(this.pathOf(aside));
  }

  /** Removes the entry `name` if it is there (a temp file left by a failed write). */
  async discard(name: Buffer): Promise<void> {
    await fs.rm(this.pathOf(name), { force: true }).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}

/**
 * Opens the folders `names` below `root` one by one (creating missing ones when `create`), hands the last to
 * `work`, and closes them all.
 */
export async function withFolder<T>(root: string, names: readonly Buffer[], create: boolean, work: (folder: FolderHandle) => Promise<T>): Promise<T> {
  const opened: FolderHandle[] = [await FolderHandle.openRoot(root)];
  try {
    for (const name of names) opened.push(await (opened.at(-1) as FolderHandle).child(name, create));
    return await work(opened.at(-1) as FolderHandle);
  } finally {
    for (const folder of opened.reverse()) await folder.close().catch(() => undefined);
  }
}
