// One snapshot of a workspace folder, taken by this process alone (no git, no program of the folder's): a walk honouring .gitignore, and the content of new or changed files kept in the blob store.
import { createHash } from 'node:crypto';
import { constants, lstatSync, readdirSync, readlinkSync, statSync, type Dirent, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { performance } from 'node:perf_hooks';
import { readSmallRegularFile } from './exactFiles';
import { FolderRules, type IgnoreFile, type IgnoreLevel } from './ignoreFiles';
import { segmentOf, shownKey } from './pathKeys';
import type { ContentStore } from './snapshotStore';
import type { FolderListing, StatIndex } from './statIndex';
import type { StoreBudget } from './storeBudget';

/** One file of a snapshot (an index entry is one as it is: a file the index vouches for costs no new object). */
export interface FileState {
  size: number;
  /** sha-256 of the bytes (for a link: of its target); "" when not hashed (above MAX_HASHED_BYTES, or unreadable). */
  sha256: string;
  /** The bytes are in the blob store. */
  stored: boolean;
  /** Set for a symbolic link. */
  link?: true;
  /** For a file not hashed: its stats, which tell its versions apart instead. */
  stamp?: string;
}

/** What tells two versions of a file apart: its hash, or its stats when it was not hashed. */
export function identityOf(state: FileState): string {
  const identity = state.sha256 || state.stamp || '';
  return state.link ? `link:${identity}` : identity;
}

/** A folder as one snapshot saw it: every file not ignored, by key (see pathKeys.ts), and the rules it was judged by. */
export interface FolderSnapshot {
  folder: string;
  files: Map<string, FileState>;
  rules: FolderRules;
  /** Folders that could not be listed (permissions): what changes in them is not seen. */
  unreadable: string[];
}

/** What one snapshot may take: beyond either cap the folder is not snapshotted (and the picker says so). */
export interface SnapshotCaps {
  maxFiles: number;
  /** Sum of the sizes of the files a snapshot keeps (those not ignored and within snapshotMaxBytes). */
  maxBytes: number;
}

export const DEFAULT_SNAPSHOT_CAPS: SnapshotCaps = { maxFiles: 50_000, maxBytes: 200 * 1024 * 1024 };

/** Largest file read to be hashed (a larger one is compared by its stats only). */
export const MAX_HASHED_BYTES = 64 * 1024 * 1024;

/** Why a snapshot was not taken, in words for the person. */
export class SnapshotUnavailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SnapshotUnavailable';
  }
}

/** Everything one snapshot writes to and is bounded by. */
export interface SnapshotContext {
  store: ContentStore;
  /** Largest file whose bytes are kept (compactionAgent.tools.snapshotMaxBytes). */
  maxBytes: number;
  caps: SnapshotCaps;
  budget: StoreBudget;
  signal?: AbortSignal;
}

/** How long the walk runs before it lets the event loop breathe (it uses synchronous calls, the fastest node has). */
const SLICE_MS = 8;
/** Files up to this size are read with synchronous calls (a few hundred microseconds at most); larger ones asynchronously. */
const SYNC_READ_BYTES = 1024 * 1024;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function stopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SnapshotUnavailable('the snapshot was stopped');
}

function stampIdentity(stat: Pick<Stats, 'size' | 'mtimeMs' | 'ctimeMs' | 'ino'>): string {
  return `stat:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`;
}

type EntryType = 'folder' | 'file' | 'link' | 'other';

interface Folder {
  key: string;
  path: string | Buffer;
  levels: readonly IgnoreLevel[];
}

interface Pending {
  key: string;
  path: string | Buffer;
  stat: Stats;
}

function joinPath(folder: string | Buffer, name: string | Buffer): string | Buffer {
  if (typeof folder === 'string' && typeof name === 'string') return `${folder}${nodePath.sep}${name}`;
  return Buffer.concat([Buffer.from(folder), Buffer.from(nodePath.sep), Buffer.from(name)]);
}

/** One entry of a folder listing: its key segment, the name the file system takes, and what it is. */
interface Listed {
  segment: string;
  name: string | Buffer;
  type: EntryType;
  /** The entry's key, made once per listing: the same string every walk, whose hash the maps keep. */
  key?: string;
  /** The path the file system takes for it, made once per listing. */
  path?: string | Buffer;
}

function typeOf(entry: Dirent): EntryType {
  if (entry.isDirectory()) return 'folder';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'link';
  return 'other';
}

/** A folder's entries; when a name is not UTF-8 (node shows such bytes as U+FFFD) the folder is listed again as bytes. */
function listFolder(path: string | Buffer): Listed[] {
  if (typeof path === 'string') {
    const listed = readdirSync(path, { withFileTypes: true });
    if (!listed.some((entry) => entry.name.includes('\uFFFD'))) return listed.map((entry) => ({ segment: entry.name, name: entry.name, type: typeOf(entry) }));
  }
  return readdirSync(path, { withFileTypes: true, encoding: 'buffer' }).map((entry) => {
    const raw = entry.name as unknown as Buffer;
    const segment = segmentOf(raw);
    return { segment, name: segment === raw.toString('utf8') ? segment : raw, type: typeOf(entry as unknown as Dirent) };
  });
}

/**
 * The folder's listing: the one kept from the last walk while the folder's own stats are unchanged (adding,
 * removing or renaming an entry changes them), else read again. Not trusted when read racily close to a change.
 */
function listingOf(index: StatIndex, key: string, path: string | Buffer): Listing {
  // The workspace folder itself may be a link to its folder; below it, links are never followed.
  const stat = key === '' ? statSync(path) : lstatSync(path);
  if (!stat.isDirectory()) throw new Error('not a folder');
  const kept = index.folders.get(key) as Listing | undefined;
  if (kept && index.freshFolder(kept, stat)) return kept;
  const listedAt = Date.now();
  const listing: Listing = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode, readAt: listedAt, entries: listFolder(path) };
  index.folders.set(key, listing);
  return listing;
}

/** A folder's listing, and which of its entries the .gitignore files above it ignore (kept while those files are the same). */
interface Listing extends FolderListing<Listed> {
  judgedWith?: readonly IgnoreFile[];
  ignored?: boolean[];
}

/** Whether each entry is ignored by `levels`: the decisions of the last walk when the same .gitignore files apply. */
function decisionsOf(listing: Listing, levels: readonly IgnoreLevel[], base: string): boolean[] {
  const files = levels.map((level) => level.file);
  const judged = listing.judgedWith;
  if (listing.ignored && judged && judged.length === files.length && judged.every((file, at) => file === files[at])) return listing.ignored;
  const ignored = listing.entries.map((item) => levels.length > 0 && item.type !== 'other' && FolderRules.ignored(levels, (item.key ??= base + item.segment), item.segment, item.type === 'folder'));
  listing.judgedWith = files;
  listing.ignored = ignored;
  return ignored;
}

function isGitFolderName(name: string): boolean {
  return name.length === 4 && name.toLowerCase() === '.git';
}

/** Lets the event loop run between slices of synchronous work; checks for a stop. */
class Slicer {
  private start = performance.now();
  private count = 0;

  constructor(private readonly signal: AbortSignal | undefined) {}

  async tick(): Promise<void> {
    if (++this.count < 32) return;
    this.count = 0;
    if (performance.now() - this.start < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    stopped(this.signal);
    this.start = performance.now();
  }
}

interface WalkState {
  folder: string;
  index: StatIndex;
  rules: FolderRules;
  context: SnapshotContext;
  files: Map<string, FileState>;
  pending: Pending[];
  unreadable: string[];
  keptBytes: number;
  /** Files met that the index has an entry for: when all its entries were met, none needs dropping. */
  indexed: number;
}

/** One entry of a folder not ignored: a subfolder to walk, or a file taken from the index or left to read. */
function visit(state: WalkState, stack: Folder[], current: Folder, levels: readonly IgnoreLevel[], base: string, listed: Listed): void {
  const { segment, name, type } = listed;
  if (isGitFolderName(segment)) return;
  listed.key ??= base + segment;
  const key = listed.key;
  // FIFOs, sockets and devices are never opened: reading one could block forever.
  if (type === 'other') return;
  listed.path ??= joinPath(current.path, name);
  const path = listed.path;
  if (type === 'folder') {
    stack.push({ key, path, levels });
    return;
  }
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  const { context, files } = state;
  if (files.size + state.pending.length >= context.caps.maxFiles) {
    throw new SnapshotUnavailable(`the folder has more than ${context.caps.maxFiles.toLocaleString('en-US')} files not excluded by .gitignore, the most a command snapshot takes`);
  }
  if (stat.isSymbolicLink()) {
    files.set(key, linkState(path, stat));
    return;
  }
  if (!stat.isFile()) return;
  if (stat.size <= context.maxBytes) {
    state.keptBytes += stat.size;
    if (state.keptBytes > context.caps.maxBytes) throw new SnapshotUnavailable(`the folder holds more than ${megabytes(context.caps.maxBytes)} of files not excluded by .gitignore, more than a command snapshot takes`);
  }
  const indexed = state.index.entries.get(key);
  if (indexed) state.indexed++;
  const known = indexed && state.index.fresh(key, stat, indexed);
  const large = stat.size > context.maxBytes;
  if (known && (known.stored || large) && known.sha256 !== '') {
    files.set(key, known);
  } else state.pending.push({ key, path, stat });
}

/**
 * Walks the folder with synchronous calls in slices of SLICE_MS: every entry not ignored by the rules, skipping
 * every `.git` (the folder's own and those of nested repositories, whose files are walked like any others). Files
 * whose stats the index vouches for are taken from it; the others are left in `pending` to be read.
 */
async function walk(state: WalkState): Promise<void> {
  const stack: Folder[] = [{ key: '', path: state.folder, levels: [] }];
  const slicer = new Slicer(state.context.signal);
  const walked = new Set<string>();
  while (stack.length > 0) {
    const current = stack.pop() as Folder;
    walked.add(current.key);
    const base = current.key === '' ? '' : `${current.key}/`;
    try {
      const listing = listingOf(state.index, current.key, current.path);
      const hasIgnoreFile = listing.entries.some((item) => item.segment === '.gitignore');
      const own = state.rules.rulesOf(base, hasIgnoreFile ? () => joinPath(current.path, '.gitignore') : undefined);
      const levels = own ? [...current.levels, { base, file: own }] : current.levels;
      const ignored = decisionsOf(listing, levels, base);
      listing.entries.forEach((item, at) => {
        if (!ignored[at]) visit(state, stack, current, levels, base, item);
      });
    } catch (error) {
      if (error instanceof SnapshotUnavailable) throw error;
      if (current.key === '') throw new SnapshotUnavailable(`the folder could not be read (${error instanceof Error ? error.message : String(error)})`);
      state.unreadable.push(shownKey(current.key));
    }
    await slicer.tick();
  }
  // Listings of folders gone (or ignored now) are not kept.
  if (state.index.folders.size > walked.size) for (const key of state.index.folders.keys()) if (!walked.has(key)) state.index.folders.delete(key);
}

function linkState(path: string | Buffer, stat: Stats): FileState {
  let target: Buffer;
  try {
    target = readlinkSync(path, { encoding: 'buffer' });
  } catch {
    return { link: true, size: stat.size, sha256: '', stamp: stampIdentity(stat), stored: false };
  }
  const sha256 = createHash('sha256').update(target).digest('hex');
  return { link: true, size: target.length, sha256, stored: false };
}

/** The bytes of a larger regular file, read without blocking the event loop (same checks as readSmallRegularFile). */
async function readLarge(path: string | Buffer): Promise<{ data: Buffer; stat: Stats } | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_HASHED_BYTES) return undefined;
    return { data: await handle.readFile(), stat };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Stores the bytes unless stored already (within the store's cap, which may first collect what nothing names). */
async function storeContent(context: SnapshotContext, sha256: string, data: Buffer): Promise<void> {
  const { store, budget } = context;
  const ref = { sha256, bytes: data.length };
  const kept = store.keepSync?.(ref) ?? (await store.keep(ref));
  if (kept) return;
  if (!budget.tryReserve(data.length) && !(await budget.reserve(data.length))) throw new SnapshotUnavailable(budget.fullReason());
  if (!store.putBytesSync?.(data, ref)) await store.putBytes(data, { durable: false });
}

/** Reads, hashes and (within snapshotMaxBytes and the store's cap) stores one file; records it in the index. */
async function readPending(item: Pending, state: WalkState): Promise<void> {
  const { context, files, index } = state;
  const readAt = Date.now();
  const read = item.stat.size > MAX_HASHED_BYTES ? undefined : item.stat.size <= SYNC_READ_BYTES ? readSmallRegularFile(item.path, SYNC_READ_BYTES) : await readLarge(item.path);
  if (!read) {
    // Too large to hash, or gone or unreadable meanwhile: compared by its stats, never stored.
    files.set(item.key, { size: item.stat.size, sha256: '', stamp: stampIdentity(item.stat), stored: false });
    return;
  }
  const { data, stat } = read;
  const sha256 = createHash('sha256').update(data).digest('hex');
  const stored = data.length <= context.maxBytes;
  if (stored) await storeContent(context, sha256, data);
  // The stats from before the read: a change while reading moves mtime or ctime past them, and the file is read again.
  const entry = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode, sha256, stored, readAt };
  index.set(item.key, entry);
  files.set(item.key, entry.size === data.length ? entry : { size: data.length, sha256, stored });
}

/**
 * Snapshots `folder`: files the index vouches for cost one lstat, the others are read, hashed and stored. Throws
 * SnapshotUnavailable (with the reason in words) when a cap is reached, the store is full or `signal` stops it;
 * the index then holds only entries that are true of the files.
 */
export async function takeFolderSnapshot(folder: string, index: StatIndex, rules: FolderRules, context: SnapshotContext): Promise<FolderSnapshot> {
  stopped(context.signal);
  const state: WalkState = { folder, index, rules, context, files: new Map(), pending: [], unreadable: [], keptBytes: 0, indexed: 0 };
  await walk(state);
  if (state.pending.length > 0) await context.budget.prepare();
  const slicer = new Slicer(context.signal);
  for (const item of state.pending) {
    await readPending(item, state);
    await slicer.tick();
  }
  if (state.unreadable.length === 0 && state.indexed < index.entries.size) index.keepOnly(state.files);
  return { folder, files: state.files, rules, unreadable: state.unreadable };
}
