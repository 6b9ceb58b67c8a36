// Content-addressed store (large tool outputs, images, file snapshots): one file per sha-256, written atomically, deduplicated.
import { createHash } from 'node:crypto';
import * as nodePath from 'node:path';
import { errorCode, type FileIo } from './fileIo';

/** Where the full text of a capped tool output lives (content-addressed, deduplicated). */
export interface BlobRef {
  sha256: string;
  /** UTF-8 byte length of the full text (the byte length of stored bytes). */
  bytes: number;
  /** UTF-16 length of the full text (the byte length again for stored bytes). */
  chars: number;
}

/** The ref of exact bytes (a file's content as it is on disk): `chars` is their length too. */
export function blobRefOfBytes(data: Uint8Array): BlobRef {
  return { sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length, chars: data.length };
}

export function blobRefOf(text: string): BlobRef {
  const data = Buffer.from(text, 'utf8');
  return { sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length, chars: text.length };
}

export class BlobStore {
  constructor(
    readonly dir: string,
    private readonly io: FileIo,
  ) {}

  pathOf(ref: Pick<BlobRef, 'sha256'>): string {
    if (!/^[0-9a-f]{64}$/.test(ref.sha256)) throw new Error(`invalid blob hash "${ref.sha256}"`);
    return nodePath.join(this.dir, `${ref.sha256}.txt`);
  }

  /**
   * Stores the text once per content; a second put of the same text writes nothing but marks the blob as in use
   * now (see keep), so a collector running in another window cannot remove it before the entry naming it lands.
   */
  async put(text: string): Promise<BlobRef> {
    const data = Buffer.from(text, 'utf8');
    return this.store(data, { ...blobRefOfBytes(data), chars: text.length }, true);
  }

  /**
   * Stores exact bytes (a file's content) once per content. `durable: false` skips the fsync: for snapshot content,
   * written by the thousand, whose hash is checked when read (a blob torn by a crash reads as corrupt, never as
   * other content).
   */
  async putBytes(data: Buffer, options: { durable?: boolean } = {}): Promise<BlobRef> {
    return this.store(data, blobRefOfBytes(data), options.durable !== false);
  }

  private async store(data: Buffer, ref: BlobRef, durable: boolean): Promise<BlobRef> {
    if (await this.keep(ref)) return ref;
    await this.io.mkdirp(this.dir);
    if (!durable && this.io.writeFileQuick) await this.io.writeFileQuick(this.pathOf(ref), data);
    else await this.io.writeFileAtomic(this.pathOf(ref), data);
    return ref;
  }

  /**
   * Marks a stored blob as in use now (its modification time): collectors keep a blob that young whoever names it.
   * False when it is not stored (missing, or of another size).
   */
  async keep(ref: Pick<BlobRef, 'sha256' | 'bytes'>): Promise<boolean> {
    if (!(await this.has(ref))) return false;
    try {
      await this.io.touch?.(this.pathOf(ref));
    } catch (error) {
      // Collected between the check and the touch: it is stored again by the caller.
      if (errorCode(error) === 'ENOENT') return false;
    }
    return true;
  }

  /**
   * keep's synchronous twin, when the file port has synchronous calls (node's has): true when stored (now marked in
   * use), false when not, undefined when the port cannot tell synchronously.
   */
  keepSync(ref: Pick<BlobRef, 'sha256' | 'bytes'>): boolean | undefined {
    const sync = this.io.blobSync;
    if (!sync) return undefined;
    const path = this.pathOf(ref);
    if (sync.size(path) !== ref.bytes) return false;
    return sync.touch(path);
  }

  /** Stores exact bytes synchronously without fsync (see putBytes); false when the port has no synchronous calls. */
  putBytesSync(data: Buffer, ref: Pick<BlobRef, 'sha256'>): boolean {
    const sync = this.io.blobSync;
    if (!sync) return false;
    sync.write(this.pathOf(ref), data);
    return true;
  }

  /** Reads the full text back; rejects when the file is missing or its content no longer matches its hash. */
  async read(ref: BlobRef): Promise<string> {
    return (await this.readBytes(ref)).toString('utf8');
  }

  /** Reads the exact bytes back; rejects when the file is missing or its content no longer matches its hash. */
  async readBytes(ref: Pick<BlobRef, 'sha256'>): Promise<Buffer> {
    const data = await this.io.readFile(this.pathOf(ref));
    const actual = createHash('sha256').update(data).digest('hex');
    if (actual !== ref.sha256) throw new Error(`blob ${ref.sha256} is corrupt (content hash ${actual})`);
    return data;
  }

  /** True when a blob with this hash and the expected size is on disk. */
  async has(ref: Pick<BlobRef, 'sha256' | 'bytes'>): Promise<boolean> {
    try {
      const { size } = await this.io.stat(this.pathOf(ref));
      return size === ref.bytes;
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return false;
      throw error;
    }
  }
}
