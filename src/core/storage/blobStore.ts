// Content-addressed store (large tool outputs, images, file snapshots): one file per sha-256, compressed, written atomically, deduplicated; a large file as content-defined chunks stored once each.
import { createHash, randomBytes } from 'node:crypto';
import * as nodePath from 'node:path';
import { BLOB_SUFFIXES, compress, decompress, parseRecipe, recipeText, type BlobSuffix, type ChunkRef } from './blobFormat';
import { ChunkSplitter } from './contentChunks';
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

/** Asks for room for `bytes` about to be written to the store; rejects (nothing is written) when there is none. */
export type Reserve = (bytes: number) => void | Promise<void>;

/** Content larger than this is stored as content-defined chunks (see contentChunks.ts), each compressed on its own. */
export const CHUNKED_FROM_BYTES = 1024 * 1024;
/** A blob whose expected length is unknown is never decompressed past this (a damaged or hostile file cannot fill memory). */
const MAX_UNKNOWN_BYTES = 1024 * 1024 * 1024;

/** Content stored piece by piece: the pieces, then end() for its ref (see BlobStore.writeChunked). */
export interface ChunkedWrite {
  write(piece: Uint8Array): Promise<void>;
  end(): Promise<BlobRef>;
}

interface Found {
  path: string;
  suffix: BlobSuffix;
}

function missing(sha256: string, what = `blob ${sha256}`): Error {
  return Object.assign(new Error(`${what} is not in the checkpoint store`), { code: 'ENOENT' });
}

/** Why the bytes read are not the content `sha256` names, or undefined when they are. */
function hashMismatch(data: Buffer, sha256: string): string | undefined {
  const actual = createHash('sha256').update(data).digest('hex');
  return actual === sha256 ? undefined : `content hash ${actual}`;
}

/** The most a compressed file is decompressed to when its reference's size was too small (blobs are at most 1 MB). */
const RECHECK_MAX_BYTES = 64 * 1024 * 1024;

/** True when the compressed bytes hold the content `sha256` names at some other size than a reference gave. */
function intactUnderWrongSize(raw: Buffer, sha256: string): boolean {
  try {
    return hashMismatch(decompress(raw, RECHECK_MAX_BYTES), sha256) === undefined;
  } catch {
    return false;
  }
}

/** A damaged blob file is renamed so: never read, listed, nor collected as a blob again, and kept byte for byte. */
export const DAMAGED_MARK = '.damaged-';

export class BlobStore {
  constructor(
    readonly dir: string,
    private readonly io: FileIo,
  ) {}

  /** Where a blob is written (compressed); one written uncompressed by an earlier version, `<sha256>.txt`, is read too. */
  pathOf(ref: Pick<BlobRef, 'sha256'>): string {
    return this.fileOf(ref.sha256, '.br');
  }

  private fileOf(sha256: string, suffix: BlobSuffix): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`invalid blob hash "${sha256}"`);
    return nodePath.join(this.dir, `${sha256}${suffix}`);
  }

  /**
   * Stores the text once per content; a second put of the same text writes nothing but marks the blob as in use
   * now (see keep), so a collector running in another window cannot remove it before the entry naming it lands.
   */
  async put(text: string): Promise<BlobRef> {
    const data = Buffer.from(text, 'utf8');
    if (data.length > CHUNKED_FROM_BYTES) return { ...(await this.putBytes(data)), chars: text.length };
    return this.store(data, { ...blobRefOfBytes(data), chars: text.length }, true);
  }

  /**
   * Stores exact bytes (a file's content) once per content. `durable: false` skips the fsync: for snapshot content,
   * written by the thousand, whose hash is checked when read (a blob torn by a crash reads as corrupt, never as
   * other content). `reserve` is asked for room before each file is written.
   */
  async putBytes(data: Buffer, options: { durable?: boolean; reserve?: Reserve } = {}): Promise<BlobRef> {
    if (data.length <= CHUNKED_FROM_BYTES) return this.store(data, blobRefOfBytes(data), options.durable !== false, options.reserve);
    const writer = this.writeChunked(options);
    await writer.write(data);
    return writer.end();
  }

  private async store(data: Uint8Array, ref: BlobRef, durable: boolean, reserve?: Reserve): Promise<BlobRef> {
    if (await this.keep(ref)) return ref;
    await this.writeFile(this.pathOf(ref), compress(data), durable, reserve);
    return ref;
  }

  private async writeFile(path: string, data: string | Buffer, durable: boolean, reserve?: Reserve): Promise<void> {
    await reserve?.(Buffer.byteLength(data));
    await this.io.mkdirp(this.dir);
    if (!durable && this.io.writeFileQuick) await this.io.writeFileQuick(path, Buffer.from(data));
    else await this.io.writeFileAtomic(path, data);
  }

  /**
   * Stores content handed over piece by piece (a large file read a piece at a time): split at content-defined points,
   * each chunk stored once (compressed, marked in use when it is there already), then the list of chunks under the
   * whole content's hash. Holds one chunk and one piece at a time, never the whole content.
   */
  writeChunked(options: { durable?: boolean; reserve?: Reserve } = {}): ChunkedWrite {
    const splitter = new ChunkSplitter();
    const whole = createHash('sha256');
    const chunks: ChunkRef[] = [];
    let bytes = 0;
    const durable = options.durable !== false;
    const storeChunk = async (chunk: Buffer): Promise<void> => {
      const ref = blobRefOfBytes(chunk);
      chunks.push(ref);
      if (!(this.keepSync(ref) ?? (await this.keep(ref)))) await this.writeFile(this.pathOf(ref), compress(chunk), durable, options.reserve);
    };
    return {
      write: async (piece) => {
        whole.update(piece);
        bytes += piece.length;
        for (const chunk of splitter.push(piece)) await storeChunk(chunk);
      },
      end: async () => {
        const last = splitter.end();
        if (last) await storeChunk(last);
        const ref: BlobRef = { sha256: whole.digest('hex'), bytes, chars: bytes };
        if (!(await this.keep(ref))) await this.writeFile(this.fileOf(ref.sha256, '.chunks'), recipeText(bytes, chunks), durable, options.reserve);
        return ref;
      },
    };
  }

  /** The blob's file, whichever kind it is; undefined when none is stored (an uncompressed one of another length is none). */
  private async find(sha256: string, bytes?: number): Promise<Found | undefined> {
    for (const suffix of BLOB_SUFFIXES) {
      const path = this.fileOf(sha256, suffix);
      try {
        const { size } = await this.io.stat(path);
        if (suffix === '.txt' ? bytes === undefined || size === bytes : size > 0) return { path, suffix };
      } catch (error) {
        if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
      }
    }
    return undefined;
  }

  /**
   * Marks a stored blob as in use now (its modification time): collectors keep a blob that young whoever names it,
   * and the chunks of a chunked blob they keep. False when it is not stored (missing, or of another size).
   */
  async keep(ref: Pick<BlobRef, 'sha256' | 'bytes'>): Promise<boolean> {
    const found = await this.find(ref.sha256, ref.bytes);
    if (!found) return false;
    try {
      await this.io.touch?.(found.path);
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
    for (const suffix of BLOB_SUFFIXES) {
      const path = this.fileOf(ref.sha256, suffix);
      const size = sync.size(path);
      if (size === undefined || (suffix === '.txt' ? size !== ref.bytes : size === 0)) continue;
      if (sync.touch(path)) return true;
    }
    return false;
  }

  /**
   * Stores exact bytes synchronously, compressed, without fsync (see putBytes), when `reserve` grants the room at once;
   * false when it does not or the port has no synchronous calls (nothing is written: putBytes can still store them).
   */
  putBytesSync(data: Buffer, ref: Pick<BlobRef, 'sha256'>, reserve: (bytes: number) => boolean = () => true): boolean {
    const sync = this.io.blobSync;
    if (!sync || data.length > CHUNKED_FROM_BYTES) return false;
    const packed = compress(data);
    if (!reserve(packed.length)) return false;
    sync.write(this.pathOf(ref), packed);
    return true;
  }

  /** Reads the full text back; rejects when the blob is missing or its content no longer matches its hash. */
  async read(ref: BlobRef): Promise<string> {
    return (await this.readBytes(ref)).toString('utf8');
  }

  /** Reads the exact bytes back; rejects when the blob (or one of its chunks) is missing or no longer matches its hash. */
  async readBytes(ref: Pick<BlobRef, 'sha256'> & { bytes?: number }): Promise<Buffer> {
    const pieces: Buffer[] = [];
    for await (const piece of this.readPieces(ref)) pieces.push(piece);
    return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  }

  /**
   * The exact bytes in pieces (a chunked blob chunk by chunk, each checked against its own hash as it is read): one
   * chunk in memory at a time. The whole content's hash is checked after the last piece; a missing or damaged chunk
   * rejects, naming it, before its piece is given.
   */
  async *readPieces(ref: Pick<BlobRef, 'sha256'> & { bytes?: number }): AsyncGenerator<Buffer> {
    const what = `blob ${ref.sha256}`;
    const found = await this.find(ref.sha256, ref.bytes);
    if (!found) throw missing(ref.sha256);
    if (found.suffix !== '.chunks') {
      yield await this.readChecked(found, ref.sha256, ref.bytes, what);
      return;
    }
    const listed = await this.io.readFile(found.path);
    const recipe = parseRecipe(listed.toString('utf8'), ref.bytes);
    if (typeof recipe === 'string') throw await this.damaged(found.path, listed, what, recipe);
    const whole = createHash('sha256');
    for (const [at, chunk] of recipe.chunks.entries()) {
      const named = `chunk ${at + 1} of ${recipe.chunks.length} (${chunk.sha256}) of ${what}`;
      const file = await this.find(chunk.sha256, chunk.bytes);
      if (!file || file.suffix === '.chunks') throw missing(chunk.sha256, named);
      const data = await this.readChecked(file, chunk.sha256, chunk.bytes, named);
      whole.update(data);
      yield data;
    }
    const actual = whole.digest('hex');
    if (actual !== ref.sha256) throw await this.damaged(found.path, listed, what, `its chunks hash to ${actual}`);
  }

  /** A whole blob file's content, checked against its hash; a damaged file is set aside (see damaged) and rejects. */
  private async readChecked(found: Found, sha256: string, bytes: number | undefined, what: string): Promise<Buffer> {
    const raw = await this.io.readFile(found.path);
    let data: Buffer;
    try {
      data = found.suffix === '.txt' ? raw : decompress(raw, bytes ?? MAX_UNKNOWN_BYTES);
    } catch (error) {
      // Larger than the reference says: the reference may be the damaged one (a hand-edited or corrupt line), and a
      // good file is never set aside for it.
      if (bytes !== undefined && intactUnderWrongSize(raw, sha256)) throw new Error(`${what} is named with ${bytes} bytes, which is not its size: the reference is wrong, the stored file is intact`);
      throw await this.damaged(found.path, raw, what, error instanceof Error ? error.message : String(error));
    }
    const mismatch = hashMismatch(data, sha256);
    if (mismatch !== undefined) throw await this.damaged(found.path, raw, what, mismatch);
    return data;
  }

  /**
   * The error for a damaged blob file, which is first renamed `<name>.damaged-<random>`: kept byte for byte, but no
   * longer taken for the blob, so the next snapshot or output holding the same content stores it whole again (before,
   * the damaged file was kept and every later checkpoint of that content named it). When the file at the path is no
   * longer the one read (another window stored it again meanwhile), it is put back.
   */
  private async damaged(path: string, seen: Buffer, what: string, reason: string): Promise<Error> {
    const aside = `${path}${DAMAGED_MARK}${randomBytes(4).toString('hex')}`;
    try {
      await this.io.rename(path, aside);
    } catch (error) {
      return new Error(`${what} is corrupt (${reason})${errorCode(error) === 'ENOENT' ? '' : `; it could not be set aside: ${error instanceof Error ? error.message : String(error)}`}`);
    }
    const moved = await this.io.readFile(aside).catch(() => undefined);
    if (moved && !moved.equals(seen)) {
      await this.io.rename(aside, path).catch(() => undefined);
      return new Error(`${what} is corrupt (${reason})`);
    }
    return new Error(`${what} is corrupt (${reason}); the damaged file was set aside as ${nodePath.basename(aside)} and the content will be stored again the next time it is seen`);
  }

  /** True when a blob with this hash and the expected size is stored. */
  async has(ref: Pick<BlobRef, 'sha256' | 'bytes'>): Promise<boolean> {
    return (await this.find(ref.sha256, ref.bytes)) !== undefined;
  }
}
