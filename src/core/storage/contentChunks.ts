// Content-defined chunking (FastCDC's gear hash with normalized cut points): a large file split where its bytes say, so an edit changes only the chunks around it.
import { createHash } from 'node:crypto';

/** No chunk is shorter (but the last); the gear hash is not even computed before this many bytes. */
export const MIN_CHUNK_BYTES = 16 * 1024;
/** Chunks average about this long. */
export const AVERAGE_CHUNK_BYTES = 64 * 1024;
/** No chunk is longer: a stretch with no cut point (zeros, say) is cut here. */
export const MAX_CHUNK_BYTES = 256 * 1024;

/**
 * The gear table: 256 fixed pseudo-random 32-bit numbers. Derived from a fixed text so it never changes: a chunk
 * boundary depends on it, and boundaries that moved would make every stored chunk look new.
 */
const GEAR = (() => {
  const table = new Int32Array(256);
  for (let block = 0; block < 32; block++) {
    const digest = createHash('sha256').update(`compaction-agent gear ${block}`).digest();
    for (let word = 0; word < 8; word++) table[block * 8 + word] = digest.readInt32LE(word * 4);
  }
  return table;
})();

/**
 * Normalized chunking (FastCDC, level 2): before the average a cut needs the top 18 bits of the hash at zero, after
 * it the top 14, which gathers chunk lengths around the average. The top bits are used because bit k of the gear
 * hash depends on the last k + 1 bytes: the top ones on the last 32.
 */
const HARD_MASK = -(1 << 14);
const EASY_MASK = -(1 << 18);

/**
 * Splits a stream of bytes into chunks at content-defined points: fed pieces of any length, it returns each chunk
 * as it completes (a copy, never a view of a piece, so a caller may reuse its read buffer). Holds at most one chunk.
 */
export class ChunkSplitter {
  private parts: Buffer[] = [];
  /** Bytes of the current chunk so far. */
  private length = 0;
  private hash = 0;

  /** The chunks `piece` completes, in order. */
  push(piece: Uint8Array): Buffer[] {
    const done: Buffer[] = [];
    let start = 0;
    let at = 0;
    while (at < piece.length) {
      if (this.length < MIN_CHUNK_BYTES) {
        const skipped = Math.min(MIN_CHUNK_BYTES - this.length, piece.length - at);
        this.length += skipped;
        at += skipped;
        continue;
      }
      const cut = this.scan(piece, at);
      if (cut < 0) {
        this.length += piece.length - at;
        break;
      }
      this.length += cut - at;
      done.push(this.take(piece, start, cut));
      start = cut;
      at = cut;
    }
    if (start < piece.length) this.parts.push(Buffer.from(piece.subarray(start)));
    return done;
  }

  /** The last chunk (what is left), or undefined when nothing is. */
  end(): Buffer | undefined {
    if (this.length === 0) return undefined;
    const last = Buffer.concat(this.parts);
    this.reset();
    return last;
  }

  /**
   * Where the current chunk ends in `piece` (the index after its last byte), scanning from `from`; -1 when it goes on
   * past the piece. The hash carries over between pieces.
   */
  private scan(piece: Uint8Array, from: number): number {
    let hash = this.hash;
    let length = this.length;
    const end = piece.length;
    let at = from;
    const normal = Math.min(end, at + Math.max(0, AVERAGE_CHUNK_BYTES - length));
    for (; at < normal; at++) {
      hash = ((hash << 1) + (GEAR[piece[at] as number] as number)) | 0;
      if ((hash & HARD_MASK) === 0) return this.cutAt(at + 1);
    }
    length += normal - from;
    const longest = Math.min(end, at + (MAX_CHUNK_BYTES - length));
    for (; at < longest; at++) {
      hash = ((hash << 1) + (GEAR[piece[at] as number] as number)) | 0;
      if ((hash & EASY_MASK) === 0) return this.cutAt(at + 1);
    }
    if (at < end) return this.cutAt(at);
    this.hash = hash;
    return -1;
  }

  private cutAt(index: number): number {
    this.hash = 0;
    return index;
  }

  private take(piece: Uint8Array, start: number, cut: number): Buffer {
    this.parts.push(Buffer.from(piece.subarray(start, cut)));
    const chunk = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.reset();
    return chunk;
  }

  private reset(): void {
    this.parts = [];
    this.length = 0;
    this.hash = 0;
  }
}

/** `data` split at its content-defined points (what a ChunkSplitter fed it in any pieces returns). */
export function chunksOf(data: Uint8Array): Buffer[] {
  const splitter = new ChunkSplitter();
  const chunks = splitter.push(data);
  const last = splitter.end();
  if (last) chunks.push(last);
  return chunks;
}
