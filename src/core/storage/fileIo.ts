// The file-system port of the session store: durable appends, atomic replaces, exclusive creates (tests wrap it to inject faults).
import * as fsSync from 'node:fs';
import { promises as fs, constants as fsConstants } from 'node:fs';
import * as nodePath from 'node:path';
import { tempPathBeside } from './tempName';

export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** Everything the session store does to disk (function properties, so wrappers can copy them unbound). Failures reject with the underlying error, code kept. */
export interface FileIo {
  readFile: (path: string) => Promise<Buffer>;
  /** Appends `text` in ONE write call and fsyncs before resolving; a short write rejects. */
  appendDurable: (path: string, text: string) => Promise<void>;
  /** Replaces the file as a whole: write a temp file, fsync it, rename it over the target, fsync the folder. */
  writeFileAtomic: (path: string, data: string | Buffer) => Promise<void>;
  /**
   * Creates the file only if it does not exist (O_EXCL); resolves false when it already exists. Fsynced unless
   * `durable` is false: a lock or guard file only excludes other processes (whose view of it needs no fsync), and one
   * left empty by a crash is judged stale by its age.
   */
  createExclusive: (path: string, data: string, options?: { durable?: boolean }) => Promise<boolean>;
  exists: (path: string) => Promise<boolean>;
  stat: (path: string) => Promise<FileStat>;
  readdir: (path: string) => Promise<string[]>;
  mkdirp: (path: string) => Promise<void>;
  rename: (from: string, to: string) => Promise<void>;
  unlink: (path: string) => Promise<void>;
  /** Cuts the file to `length` bytes and fsyncs. */
  truncate: (path: string, length: number) => Promise<void>;
  /** Sets the file's modification time to now (rejects ENOENT when it is gone): a blob in use is kept by collectors. */
  touch?: (path: string) => Promise<void>;
  /**
   * Replaces the file as a whole through a temp file and a rename, without fsync: for content that can be written
   * again (snapshot blobs, checked by their hash when read), where a folder of thousands of fsyncs would take minutes.
   */
  writeFileQuick?: (path: string, data: Buffer) => Promise<void>;
  /**
   * Synchronous blob calls for command snapshots, which read and store thousands of small files in short slices
   * of the event loop (a promise per call would cost more than the call): size of a file (undefined: none),
   * touch (false: none), and writeFileQuick's synchronous twin (creating the folder when missing).
   */
  blobSync?: {
    size: (path: string) => number | undefined;
    touch: (path: string) => boolean;
    write: (path: string, data: Buffer) => void;
  };
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = error.code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/**
 * Files up to this size are read with synchronous calls: a few system calls on a local file cost microseconds, while
 * each trip through the thread pool costs tens (open, stat, read and close: about 0.2 ms of CPU for a 270 KB log of
 * 1,000 entries, against 0.07 ms). Larger files go through the pool, so a slow disk never holds the event loop long.
 */
export const SYNC_READ_MAX_BYTES = 1024 * 1024;

/**
 * The whole of a small regular file through one descriptor; undefined for anything else (larger than
 * SYNC_READ_MAX_BYTES, size 0, not a regular file). Opened non-blocking: a named pipe would otherwise hold the
 * event loop until something writes to it.
 */
function readSmall(path: string): Buffer | undefined {
  const fd = fsSync.openSync(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  try {
    const stats = fsSync.fstatSync(fd);
    const size = stats.size;
    if (!stats.isFile() || size === 0 || size > SYNC_READ_MAX_BYTES) return undefined;
    const buffer = Buffer.allocUnsafeSlow(size);
    let length = 0;
    while (length < size) {
      const bytesRead = fsSync.readSync(fd, buffer, length, size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length === size ? buffer : buffer.subarray(0, length);
  } finally {
    fsSync.closeSync(fd);
  }
}

/**
 * The whole file in one read of its size through one handle: fs.promises.readFile reads in 512 KB pieces, each a
 * trip through the thread pool (for a 27 MB session log, 7.6 ms of CPU against 2.6 ms in a fresh process). A small
 * file is read synchronously (readSmall); a file whose size is not known (0, as /proc files report) is read in pieces
 * to its end.
 */
async function readWhole(path: string): Promise<Buffer> {
  const small = readSmall(path);
  if (small) return small;
  const handle = await fs.open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return await handle.readFile();
    const buffer = Buffer.allocUnsafeSlow(size);
    let length = 0;
    while (length < size) {
      const { bytesRead } = await handle.read(buffer, length, size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length === size ? buffer : buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** A file created only if missing, written without fsync, in three system calls (lock and guard files: tens of bytes). */
function createExclusiveQuick(path: string, data: string): boolean {
  let fd: number;
  try {
    fd = fsSync.openSync(path, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    fsSync.writeFileSync(fd, data);
  } finally {
    fsSync.closeSync(fd);
  }
  return true;
}

async function fsyncDirectory(dir: string): Promise<void> {
  // Makes a rename durable; not every platform can open a folder, so this is best effort.
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    return;
  }
}

export const nodeFileIo: FileIo = {
  readFile: readWhole,
  async appendDurable(path, text) {
    const data = Buffer.from(text, 'utf8');
    const handle = await fs.open(path, 'a');
    try {
      const { bytesWritten } = await handle.write(data, 0, data.length);
      if (bytesWritten !== data.length) {
        throw Object.assign(new Error(`short write to ${path}: ${bytesWritten} of ${data.length} bytes`), { code: 'ESHORTWRITE' });
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async writeFileAtomic(path, data) {
    const temp = tempPathBeside(path, `${process.pid}.tmp`);
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(temp, path);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    await fsyncDirectory(nodePath.dirname(path));
  },
  async createExclusive(path, data, options) {
    if (options?.durable === false) return createExclusiveQuick(path, data);
    let handle;
    try {
      handle = await fs.open(path, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      throw error;
    }
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  },
  async exists(path) {
    try {
      await fs.access(path);
      return true;
    } catch {
      return false;
    }
  },
  async stat(path) {
    const stats = await fs.stat(path);
    return { size: stats.size, mtimeMs: stats.mtimeMs };
  },
  readdir: (path) => fs.readdir(path),
  async mkdirp(path) {
    await fs.mkdir(path, { recursive: true });
  },
  rename: (from, to) => fs.rename(from, to),
  unlink: (path) => fs.unlink(path),
  async truncate(path, length) {
    const handle = await fs.open(path, 'r+');
    try {
      await handle.truncate(length);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async touch(path) {
    const now = new Date();
    await fs.utimes(path, now, now);
  },
  blobSync: {
    size(path) {
      return fsSync.statSync(path, { throwIfNoEntry: false })?.size;
    },
    touch(path) {
      try {
        const now = new Date();
        fsSync.utimesSync(path, now, now);
        return true;
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return false;
        throw error;
      }
    },
    write(path, data) {
      const temp = tempPathBeside(path, `${process.pid}.tmp`);
      try {
        fsSync.writeFileSync(temp, data);
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
        fsSync.mkdirSync(nodePath.dirname(path), { recursive: true });
        fsSync.writeFileSync(temp, data);
      }
      try {
        fsSync.renameSync(temp, path);
      } catch (error) {
        fsSync.rmSync(temp, { force: true });
        throw error;
      }
    },
  },
  async writeFileQuick(path, data) {
    const temp = tempPathBeside(path, `${process.pid}.tmp`);
    try {
      await fs.writeFile(temp, data);
      await fs.rename(temp, path);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  },
};
