// How a blob lies on disk: brotli-compressed (`<sha256>.br`), a list of content-defined chunks (`<sha256>.chunks`), or as earlier versions wrote it, uncompressed (`<sha256>.txt`).
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** The kinds of blob file, by name suffix, in the order a read looks for them. */
export const BLOB_SUFFIXES = ['.br', '.chunks', '.txt'] as const;
export type BlobSuffix = (typeof BLOB_SUFFIXES)[number];

/** A blob file's name: its sha-256 and its kind; anything else in the folder is not a blob. */
export const BLOB_FILE_NAME = /^([0-9a-f]{64})\.(br|chunks|txt)$/;

/**
 * Brotli quality 3, measured on this repository's sources and a log file against zlib: about the speed of deflate
 * level 1 (what git uses for loose objects) with 20 % smaller output, 2.5× the speed of deflate level 6 with a
 * smaller output still; decompression is as fast as inflate.
 */
const QUALITY = 3;

/** The smallest window that holds `bytes` (brotli allows 10 to 24 bits): less memory for small blobs, nothing lost for large ones. */
function windowBits(bytes: number): number {
  return Math.min(24, Math.max(10, Math.ceil(Math.log2(bytes + 16))));
}

export function compress(data: Uint8Array): Buffer {
  return brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: data.length, [constants.BROTLI_PARAM_LGWIN]: windowBits(data.length) },
  });
}

/** The bytes `data` compresses; rejects (never returns more than `maxBytes`) when they are not brotli or longer than that. */
export function decompress(data: Uint8Array, maxBytes: number): Buffer {
  return brotliDecompressSync(data, { maxOutputLength: Math.max(1, maxBytes) });
}

/** One chunk of a chunked blob: its own content hash and length. */
export interface ChunkRef {
  sha256: string;
  bytes: number;
}

/** A chunked blob's list: a header with the whole length, then one chunk a line (plain text: the collector reads its hashes as it reads a session's). */
const RECIPE_HEADER = 'compaction-agent chunks 1';

export function recipeText(bytes: number, chunks: readonly ChunkRef[]): string {
  return `${RECIPE_HEADER} ${bytes}\n${chunks.map((chunk) => `${chunk.sha256} ${chunk.bytes}\n`).join('')}`;
}

/** The chunks a list names, or a reason it is not one (damaged, or its lengths do not add up to `bytes` when given). */
export function parseRecipe(text: string, bytes?: number): { chunks: ChunkRef[]; bytes: number } | string {
  const lines = text.split('\n');
  const header = new RegExp(`^${RECIPE_HEADER} (\\d+)$`).exec(lines[0] ?? '');
  if (!header || lines.at(-1) !== '') return 'its list of chunks is damaged';
  const total = Number(header[1]);
  const chunks: ChunkRef[] = [];
  let sum = 0;
  for (const line of lines.slice(1, -1)) {
    const match = /^([0-9a-f]{64}) (\d+)$/.exec(line);
    if (!match) return 'its list of chunks is damaged';
    const chunk = { sha256: match[1] as string, bytes: Number(match[2]) };
    chunks.push(chunk);
    sum += chunk.bytes;
  }
  if (sum !== total || (bytes !== undefined && total !== bytes)) return `its list of chunks adds up to ${sum} bytes, not ${bytes ?? total}`;
  return { chunks, bytes: total };
}
