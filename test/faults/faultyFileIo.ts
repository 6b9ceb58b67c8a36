// A FileIo wrapper that fails chosen writes with ENOSPC, leaving what a full disk really leaves (nothing, a prefix, or unsynced bytes).
import { promises as fs } from 'node:fs';
import { nodeFileIo, type FileIo } from '../../src/core/storage/fileIo';

/** none: nothing written; partial: a prefix reached the file; unsynced: all bytes written but fsync failed. */
export type FailureMode = 'none' | 'partial' | 'unsynced';

type WriteMethod = 'appendDurable' | 'writeFileAtomic' | 'createExclusive' | 'truncate';

interface Armed {
  method: WriteMethod;
  mode: FailureMode;
  /** Only paths containing this text fail (e.g. "quarantine", "index.json"). */
  pathContains: string;
}

export function enospc(path: string): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC' });
}

export class FaultyFileIo implements FileIo {
  private armed: Armed[] = [];
  /** How many writes failed so far (a case checks its fault really fired). */
  fired = 0;

  constructor(private readonly inner: FileIo = nodeFileIo) {}

  /** The next write of `method` on a matching path fails in `mode` (one shot). */
  failNext(method: WriteMethod, mode: FailureMode, pathContains = ''): void {
    this.armed.push({ method, mode, pathContains });
  }

  /** Space comes back: nothing armed fails any more. */
  heal(): void {
    this.armed = [];
  }

  private take(method: WriteMethod, path: string): Armed | undefined {
    const index = this.armed.findIndex((armed) => armed.method === method && path.includes(armed.pathContains));
    if (index < 0) return undefined;
    this.fired++;
    return this.armed.splice(index, 1)[0];
  }

  readFile = (path: string): Promise<Buffer> => this.inner.readFile(path);
  exists = (path: string): Promise<boolean> => this.inner.exists(path);
  stat = (path: string): ReturnType<FileIo['stat']> => this.inner.stat(path);
  readdir = (path: string): Promise<string[]> => this.inner.readdir(path);
  mkdirp = (path: string): Promise<void> => this.inner.mkdirp(path);
  rename = (from: string, to: string): Promise<void> => this.inner.rename(from, to);
  unlink = (path: string): Promise<void> => this.inner.unlink(path);

  async appendDurable(path: string, text: string): Promise<void> {
    const armed = this.take('appendDurable', path);
    if (!armed) return this.inner.appendDurable(path, text);
    const data = Buffer.from(text, 'utf8');
    if (armed.mode === 'partial') await fs.appendFile(path, data.subarray(0, Math.max(1, Math.floor(data.length / 2))));
    if (armed.mode === 'unsynced') await fs.appendFile(path, data);
    throw enospc(path);
  }

  async writeFileAtomic(path: string, data: string | Buffer): Promise<void> {
    const armed = this.take('writeFileAtomic', path);
    if (!armed) return this.inner.writeFileAtomic(path, data);
    // A real atomic write fails while writing its temp file; the target is never touched.
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (armed.mode !== 'none')
      await fs.writeFile(`${path}.enospc.tmp`, bytes.subarray(0, Math.floor(bytes.length / 2)));
    throw enospc(path);
  }

  async createExclusive(path: string, data: string): Promise<boolean> {
    const armed = this.take('createExclusive', path);
    if (!armed) return this.inner.createExclusive(path, data);
    // O_EXCL succeeded, then the write ran out of space: the file exists with part of its content.
    if (armed.mode !== 'none') await fs.writeFile(path, data.slice(0, Math.floor(data.length / 2)), { flag: 'wx' });
    throw enospc(path);
  }

  async truncate(path: string, length: number): Promise<void> {
    if (!this.take('truncate', path)) return this.inner.truncate(path, length);
    throw enospc(path);
  }
}
