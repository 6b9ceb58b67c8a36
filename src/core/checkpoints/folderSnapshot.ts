// One snapshot of a workspace folder, taken by this process alone (no git, no program of the folder's): a walk honouring .gitignore, and the content of new or changed files kept in the blob store.
import { createHash } from 'node:crypto';
import { constants, lstatSync, readlinkSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { readSmallRegularFile } from './exactFiles';
import { ignoredAt, judgeWith, listingOf, type Listed } from './folderListing';
import type { FolderRules, IgnoreLevel } from './ignoreFiles';
import { MatchBudget } from './matchSteps';
import { shownKey } from './pathKeys';
import type { ContentStore } from './snapshotStore';
import type { StatIndex } from './statIndex';
import type { StoreBudget } from './storeBudget';
import { WalkSlicer, type Pause } from './walkSlices';

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
  /** The file's mode as lstat gives it (type and permission bits); absent for a link. */
  mode?: number;
}

/** The permission bits of a file's mode (what a restore sets), or undefined when none was recorded. */
export function permissionsOf(state: Pick<FileState, 'mode' | 'link'>): number | undefined {
  return state.link || state.mode === undefined ? undefined : state.mode & 0o7777;
}

/** What tells two versions of a file apart: its hash (or its stats when it was not hashed) and its permission bits. */
export function identityOf(state: FileState): string {
  const identity = state.sha256 || state.stamp || '';
  if (state.link) return `link:${identity}`;
  const permissions = permissionsOf(state);
  return permissions === undefined ? identity : `${identity}:${permissions.toString(8)}`;
}

/** A folder as one snapshot saw it: every file not ignored, by key (see pathKeys.ts), and the rules it was judged by. */
export interface FolderSnapshot {
  folder: string;
  files: Map<string, FileState>;
  rules: FolderRules;
  /** Folders that could not be listed (permissions): what changes in them is not seen. */
  unreadable: string[];
  /** Entries whose .gitignore rules took more than one entry's matching budget: judged not ignored (snapshotted). */
  overBudget: number;
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
  /** How the walk lets the event loop run between slices (default: setImmediate); see walkSlices.ts. */
  pause?: Pause;
}
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

function isGitFolderName(name: string): boolean {
  return name.length === 4 && name.toLowerCase() === '.git';
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
  slicer: WalkSlicer;
  matching: MatchBudget;
}

/** Ends the slice (called when it has done its share), and stops when asked to. */
async function breathe(state: WalkState): Promise<void> {
  await state.slicer.pause();
  stopped(state.context.signal);
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

/** Walks one folder's entries: each judged by the rules and, unless ignored, visited; the walk may pause between any two. */
async function walkEntries(state: WalkState, stack: Folder[], current: Folder, base: string): Promise<void> {
  const { slicer, matching } = state;
  const listing = await listingOf(state.index, current.key, current.path, slicer);
  const own = await state.rules.rulesOf(base, listing.hasIgnoreFile ? () => joinPath(current.path, '.gitignore') : undefined, slicer);
  const levels = own ? [...current.levels, { base, file: own }] : current.levels;
  judgeWith(listing, levels);
  const entries = listing.entries;
  for (let at = 0; at < entries.length; at++) {
    const spent = matching.total;
    const ignored = ignoredAt(listing, at, levels, base, matching);
    slicer.count('matchSteps', matching.total - spent);
    slicer.count('entries');
    if (!ignored) visit(state, stack, current, levels, base, entries[at] as Listed);
    if (state.slicer.due()) await breathe(state);
  }
}

/**
 * Walks the folder with synchronous calls in slices (walkSlices.ts): every entry not ignored by the rules, skipping
 * every `.git` (the folder's own and those of nested repositories, whose files are walked like any others). Files
 * whose stats the index vouches for are taken from it; the others are left in `pending` to be read.
 */
async function walk(state: WalkState): Promise<void> {
  const stack: Folder[] = [{ key: '', path: state.folder, levels: [] }];
  const walked = new Set<string>();
  while (stack.length > 0) {
    const current = stack.pop() as Folder;
    walked.add(current.key);
    const base = current.key === '' ? '' : `${current.key}/`;
    try {
      await walkEntries(state, stack, current, base);
    } catch (error) {
      if (error instanceof SnapshotUnavailable) throw error;
      if (current.key === '') throw new SnapshotUnavailable(`the folder could not be read (${error instanceof Error ? error.message : String(error)})`);
      state.unreadable.push(shownKey(current.key));
    }
    if (state.slicer.due()) await breathe(state);
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
    files.set(item.key, { size: item.stat.size, sha256: '', stamp: stampIdentity(item.stat), stored: false, mode: item.stat.mode });
    return;
  }
  const { data, stat } = read;
  state.slicer.count('bytes', data.length);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const stored = data.length <= context.maxBytes;
  if (stored) await storeContent(context, sha256, data);
  // The stats from before the read: a change while reading moves mtime or ctime past them, and the file is read again.
  const entry = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode, sha256, stored, readAt };
  index.set(item.key, entry);
  files.set(item.key, entry.size === data.length ? entry : { size: data.length, sha256, stored, mode: stat.mode });
}

/**
 * Snapshots `folder`: files the index vouches for cost one lstat, the others are read, hashed and stored. Throws
 * SnapshotUnavailable (with the reason in words) when a cap is reached, the store is full or `signal` stops it;
 * the index then holds only entries that are true of the files.
 */
export async function takeFolderSnapshot(folder: string, index: StatIndex, rules: FolderRules, context: SnapshotContext): Promise<FolderSnapshot> {
  stopped(context.signal);
  const slicer = new WalkSlicer(context.pause);
  const state: WalkState = { folder, index, rules, context, files: new Map(), pending: [], unreadable: [], keptBytes: 0, indexed: 0, slicer, matching: new MatchBudget() };
  await walk(state);
  if (state.pending.length > 0) await context.budget.prepare();
  for (const item of state.pending) {
    await readPending(item, state);
    slicer.count('entries');
    if (state.slicer.due()) await breathe(state);
  }
  if (state.unreadable.length === 0 && state.indexed < index.entries.size) index.keepOnly(state.files);
  return { folder, files: state.files, rules, unreadable: state.unreadable, overBudget: state.matching.exceeded };
}
