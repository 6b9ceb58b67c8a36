// A snapshot reading one file: hashed, its bytes stored (a small file whole, a large one read a piece at a time and stored by chunks), and its index entry made.
import { createHash } from 'node:crypto';
import { constants, readlinkSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Reserve } from '../storage/blobStore';
import { readSmallRegularFile } from './exactFiles';
import type { Listed } from './folderListing';
import { hashedUpTo, SnapshotUnavailable, type SnapshotContext } from './snapshotBounds';
import { fileEntry, type IndexedFile, type StatIndex } from './statIndex';
import type { StoreBudget } from './storeBudget';
import type { WalkSlicer } from './walkSlices';

/** Files up to this size are read with synchronous calls (a few hundred microseconds at most) and stored whole; larger ones a piece at a time, asynchronously, and stored as chunks. */
const SYNC_READ_BYTES = 1024 * 1024;
/** How much of a larger file is read at once (hashed, split and compressed before the walk may pause: about a millisecond). */
const PIECE_BYTES = 256 * 1024;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** A file whose entry the index cannot vouch for: read, hashed and stored after the walk. */
export interface Pending {
  listed: Listed;
  key: string;
  path: string | Buffer;
  stat: Stats;
}

/** What reading files for one walk needs: where they go, how the walk pauses, and the walk's number for the entries. */
export interface ReadTarget {
  context: SnapshotContext;
  index: StatIndex;
  slicer: WalkSlicer;
  walk: number;
  /** Ends a slice (the walk's pause, which also stops it when asked). */
  breathe(): Promise<void>;
}

/** A file as it was read: its hash, the bytes read, the stats from before reading, and whether its bytes are stored. */
interface Read {
  sha256: string;
  bytes: number;
  stat: Stats;
  stored: boolean;
}

/** A link's entry: the hash of its target (never followed, never stored). */
export function linkEntry(path: string | Buffer, stat: Stats, walk: number): IndexedFile {
  const readAt = Date.now();
  let sha256 = '';
  try {
    sha256 = createHash('sha256').update(readlinkSync(path, { encoding: 'buffer' })).digest('hex');
  } catch {
    // Unreadable: told apart from its other versions by its stats.
  }
  return fileEntry(stat, readAt, sha256, false, true, walk);
}

/** The reservation a snapshot's writes go through: room within the store's cap, else the snapshot is not taken. */
function reserveIn(budget: StoreBudget): Reserve {
  return async (bytes) => {
    if (!budget.tryReserve(bytes) && !(await budget.reserve(bytes))) throw new SnapshotUnavailable(budget.fullReason());
  };
}

/** Stores small content unless stored already (within the store's cap, which may first collect what nothing names). */
async function storeSmall(context: SnapshotContext, sha256: string, data: Buffer): Promise<void> {
  const { store, budget } = context;
  const ref = { sha256, bytes: data.length };
  if (store.keepSync?.(ref) ?? (await store.keep(ref))) return;
  if (store.putBytesSync?.(data, ref, (bytes) => budget.tryReserve(bytes))) return;
  await store.putBytes(data, { durable: false, reserve: reserveIn(budget) });
}

/**
 * A larger file read a piece at a time without blocking the event loop (opened as readSmallRegularFile opens one),
 * hashed, and stored by chunks when `keep` (and the store can): never more than a piece and a chunk in memory.
 * Undefined when it is not a regular file within `limit` or cannot be read.
 */
async function readLarge(path: string | Buffer, limit: number, keep: boolean, target: ReadTarget): Promise<Read | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > limit) return undefined;
    const { store, budget } = target.context;
    const writer = keep ? store.writeChunked?.({ durable: false, reserve: reserveIn(budget) }) : undefined;
    const hash = writer ? undefined : createHash('sha256');
    const buffer = Buffer.allocUnsafe(PIECE_BYTES);
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, bytes);
      if (bytesRead === 0 || bytes + bytesRead > limit) break;
      const piece = buffer.subarray(0, bytesRead);
      if (writer) await writer.write(piece);
      else hash?.update(piece);
      bytes += bytesRead;
      target.slicer.count('bytes', bytesRead);
      if (target.slicer.due()) await target.breathe();
    }
    const sha256 = writer ? (await writer.end()).sha256 : (hash?.digest('hex') ?? '');
    return { sha256, bytes, stat, stored: writer !== undefined };
  } catch (error) {
    if (error instanceof SnapshotUnavailable) throw error;
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Reads, hashes and (within snapshotMaxBytes and the store's cap) stores one file; records it in the index. */
export async function readPending(item: Pending, target: ReadTarget): Promise<void> {
  const { context, index } = target;
  const readAt = Date.now();
  const size = item.stat.size;
  const keep = size <= context.maxBytes;
  let read: Read | undefined;
  if (size <= SYNC_READ_BYTES) {
    const small = readSmallRegularFile(item.path, SYNC_READ_BYTES);
    if (small) {
      target.slicer.count('bytes', small.data.length);
      const sha256 = createHash('sha256').update(small.data).digest('hex');
      const stored = keep && small.data.length <= context.maxBytes;
      if (stored) await storeSmall(context, sha256, small.data);
      read = { sha256, bytes: small.data.length, stat: small.stat, stored };
    }
  } else if (size <= hashedUpTo(context)) read = await readLarge(item.path, hashedUpTo(context), keep, target);
  // Unread (too large to hash, or gone or unreadable meanwhile): told apart by its stats, never stored. The stats are
  // from before the read: a change while reading moves mtime or ctime past them, and the file is read again.
  const entry = read
    ? fileEntry({ size: read.bytes, mtimeMs: read.stat.mtimeMs, ctimeMs: read.stat.ctimeMs, ino: read.stat.ino, mode: read.stat.mode }, readAt, read.sha256, read.stored, false, target.walk)
    : fileEntry(item.stat, readAt, '', false, false, target.walk);
  index.set(item.key, entry);
  item.listed.file = entry;
}
