// Content-addressed store for large tool outputs: one file per sha-256, written atomically, deduplicated.
import { createHash } from 'node:crypto';
import * as nodePath from 'node:path';
import type { FileIo } from './fileIo';

/** Where the full text of a capped tool output lives (content-addressed, deduplicated). */
export interface BlobRef {
  sha256: string;
  /** UTF-8 byte length of the full text. */
  bytes: number;
  /** UTF-16 length of the full text. */
  chars: number;
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

  /** Stores the text once per content; a second put of the same text writes nothing. */
  async put(text: string): Promise<BlobRef> {
    const ref = blobRefOf(text);
    if (await this.has(ref)) return ref;
    await this.io.mkdirp(this.dir);
    await this.io.writeFileAtomic(this.pathOf(ref), Buffer.from(text, 'utf8'));
    return ref;
  }

  /** Reads the full text back; rejects when the file is missing or its content no longer matches its hash. */
  async read(ref: BlobRef): Promise<string> {
    const data = await this.io.readFile(this.pathOf(ref));
    const actual = createHash('sha256').update(data).digest('hex');
    if (actual !== ref.sha256) throw new Error(`blob ${ref.sha256} is corrupt (content hash ${actual})`);
    return data.toString('utf8');
  }

  /** True when a blob with this hash and the expected size is on disk. */
  async has(ref: BlobRef): Promise<boolean> {
    const path = this.pathOf(ref);
    if (!(await this.io.exists(path))) return false;
    const { size } = await this.io.stat(path);
    return size === ref.bytes;
  }
}
