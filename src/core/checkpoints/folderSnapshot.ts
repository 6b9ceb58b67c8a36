// One snapshot of a workspace folder, taken by this process alone (no git, no program of the folder's): a walk honouring .gitignore that brings the folder's stat index up to date (every folder, or only those its watch says changed), the content of new or changed files kept in the blob store.
import { lstatSync } from 'node:fs';
import * as nodePath from 'node:path';
import { ignoredAt, judgeWith, listingOf, type Listed, type Listing } from './folderListing';
import { FolderRules, type IgnoreLevel } from './ignoreFiles';
import { MatchBudget } from './matchSteps';
import { shownKey } from './pathKeys';
import { hashedUpTo, SnapshotUnavailable, stopped, type SnapshotContext } from './snapshotBounds';
import { linkEntry, readPending, type Pending, type ReadTarget } from './snapshotReads';
import { freshEntry, type IndexedFile, type StatIndex } from './statIndex';
import { WalkSlicer } from './walkSlices';

export { DEFAULT_SNAPSHOT_CAPS, identityOf, MAX_HASHED_BYTES, permissionsOf, SnapshotUnavailable } from './snapshotBounds';
export type { FileState, SnapshotCaps, SnapshotContext } from './snapshotBounds';

/**
 * A folder as one snapshot saw it: its stat index then holds every file not ignored (by key, see pathKeys.ts), as
 * the walk found it; what changed between two snapshots is what the index journaled between them.
 */
export interface FolderSnapshot {
  folder: string;
  /** The rules the folder was judged by. */
  rules: FolderRules;
  /** Folders that could not be listed (permissions): what changes in them is not seen. */
  unreadable: string[];
  /** Entries whose .gitignore rules took more than one entry's matching budget: judged not ignored (snapshotted). */
  overBudget: number;
  /** True when the walk looked only at the folders its watch named (see folderWatch.ts), not at every file. */
  partial: boolean;
}

const IF_MISSING = { throwIfNoEntry: false } as const;

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

interface Folder {
  key: string;
  path: string | Buffer;
  levels: readonly IgnoreLevel[];
}

function joinPath(folder: string | Buffer, name: string | Buffer): string | Buffer {
  if (typeof folder === 'string' && typeof name === 'string') return `${folder}${nodePath.sep}${name}`;
  return Buffer.concat([Buffer.from(folder), Buffer.from(nodePath.sep), Buffer.from(name)]);
}

function isGitFolderName(name: string): boolean {
  return name.length === 4 && name.toLowerCase() === '.git';
}

interface WalkState extends ReadTarget {
  folder: string;
  rules: FolderRules;
  /** Files met so far (what caps.maxFiles counts). */
  files: number;
  /** Index entries met (stamped) so far: when all were, none needs dropping. */
  met: number;
  pending: Pending[];
  /** Keys of the folders that could not be listed, and the same as a person reads them. */
  unreadableKeys: string[];
  unreadable: string[];
  keptBytes: number;
  matching: MatchBudget;
  /** The device of the workspace folder: a folder on another one is always looked at (its changes may raise no event). */
  device: number | undefined;
}

/** True when an entry the stats vouch for needs no reading: hashed (or too large to hash), and stored unless too large to keep. */
function settled(entry: IndexedFile, size: number, context: SnapshotContext): boolean {
  if (entry.link) return true;
  if (entry.sha256 === '') return size > hashedUpTo(context);
  return entry.stored || size > context.maxBytes;
}

/** A file (or link) not ignored: taken from the index when its stats vouch for it, else left to read. One lstat. */
function visitFile(state: WalkState, folderKey: string, listed: Listed, key: string, path: string | Buffer): void {
  const stat = lstatSync(path, IF_MISSING);
  if (stat === undefined) return;
  const { context, index } = state;
  if (++state.files > context.caps.maxFiles) {
    throw new SnapshotUnavailable(`the folder has more than ${context.caps.maxFiles.toLocaleString('en-US')} files not excluded by .gitignore, the most a command snapshot takes`);
  }
  // A file with other names may change through one outside the folder's watch: its folder is always looked at.
  if (stat.nlink > 1 && !stat.isSymbolicLink()) context.watch?.lookAlways(folderKey);
  let entry = listed.file;
  if (entry === undefined || entry.replaced) entry = listed.file = index.entries.get(key);
  const size = stat.size;
  if (size <= context.maxBytes && !stat.isSymbolicLink()) {
    state.keptBytes += size;
    if (state.keptBytes > context.caps.maxBytes) throw new SnapshotUnavailable(`the folder holds more than ${megabytes(context.caps.maxBytes)} of files not excluded by .gitignore, more than a command snapshot takes`);
  }
  // The same stats mean the same type (the mode holds it): a link or a file as the entry says.
  if (entry !== undefined && freshEntry(entry, stat) && settled(entry, size, context)) {
    if (entry.walk !== state.walk) state.met++;
    entry.walk = state.walk;
    return;
  }
  if (stat.isSymbolicLink()) {
    const link = linkEntry(path, stat, state.walk);
    index.set(key, link);
    listed.file = link;
    state.met++;
  } else if (stat.isFile()) state.pending.push({ listed, key, path, stat });
}

/** Judges and visits a listed folder's entries (subfolders go to `found`); the walk may pause between any two. */
async function visitEntries(state: WalkState, listing: Listing, current: Folder, levels: readonly IgnoreLevel[], found: (folder: Folder) => void): Promise<void> {
  const { slicer, matching } = state;
  const base = current.key === '' ? '' : `${current.key}/`;
  judgeWith(listing, levels);
  const entries = listing.entries;
  const decisions = listing.ignored;
  for (let at = 0; at < entries.length; at++) {
    const listed = entries[at] as Listed;
    let ignored = decisions?.[at];
    if (ignored === undefined) {
      const spent = matching.total;
      ignored = ignoredAt(listing, at, levels, base, matching);
      slicer.count('matchSteps', matching.total - spent);
    }
    // FIFOs, sockets and devices are never opened: reading one could block forever.
    if (!ignored && listed.type !== 'other' && !isGitFolderName(listed.segment)) {
      const key = (listed.key ??= base + listed.segment);
      const path = (listed.path ??= joinPath(current.path, listed.name));
      if (listed.type === 'folder') found({ key, path, levels });
      else visitFile(state, current.key, listed, key, path);
    }
    if (slicer.step()) await state.breathe();
  }
}

/** Lists one folder (watched first, when the walk feeds a watch) and reads its .gitignore: the levels its entries are judged by. */
async function openFolder(state: WalkState, current: Folder): Promise<{ listing: Listing; levels: readonly IgnoreLevel[] }> {
  const { slicer, context } = state;
  const watch = context.watch;
  const listing = await listingOf(state.index, current.key, current.path, slicer, watch ? (ino) => watch.add(current.key, current.path, ino) : undefined);
  if (state.device === undefined) state.device = listing.dev;
  else if (listing.dev !== state.device) watch?.lookAlways(current.key);
  const base = current.key === '' ? '' : `${current.key}/`;
  const own = await state.rules.rulesOf(base, listing.hasIgnoreFile ? () => joinPath(current.path, '.gitignore') : undefined, slicer);
  const levels = own ? [...current.levels, { base, file: own }] : current.levels;
  listing.path = current.path;
  listing.levels = levels;
  return { listing, levels };
}

/**
 * Walks the folder with synchronous calls in slices (walkSlices.ts): every entry not ignored by the rules, skipping
 * every `.git` (the folder's own and those of nested repositories, whose files are walked like any others). Files
 * whose stats the index vouches for are taken from it; the others are left in `pending` to be read.
 */
async function walkAll(state: WalkState): Promise<void> {
  const stack: Folder[] = [{ key: '', path: state.folder, levels: [] }];
  const walked = new Set<string>();
  while (stack.length > 0) {
    const current = stack.pop() as Folder;
    walked.add(current.key);
    try {
      const { listing, levels } = await openFolder(state, current);
      await visitEntries(state, listing, current, levels, (folder) => stack.push(folder));
    } catch (error) {
      if (error instanceof SnapshotUnavailable) throw error;
      if (current.key === '') throw new SnapshotUnavailable(`the folder could not be read (${error instanceof Error ? error.message : String(error)})`);
      state.unreadableKeys.push(current.key);
      state.unreadable.push(shownKey(current.key));
    }
    if (state.slicer.due()) await state.breathe();
  }
  // Listings of folders gone (or ignored now) are not kept, nor watched.
  if (state.index.folders.size > walked.size) for (const key of state.index.folders.keys()) if (!walked.has(key)) state.index.folders.delete(key);
  state.context.watch?.keepOnly(walked);
}

function folderNames(listing: Listing): string {
  return listing.entries
    .filter((item) => item.type === 'folder')
    .map((item) => item.segment)
    .sort()
    .join('/');
}

/**
 * Looks again at the folders `changed` names only (those with an event since the last snapshot, see folderWatch.ts):
 * each listed again when its own stats changed, its files looked at, those no longer listed dropped. False, after
 * doing part of it, when this cannot stand for a full walk: a folder that went, came, was replaced or cannot be
 * read, or whose .gitignore reads otherwise now.
 */
async function walkChanged(state: WalkState, changed: ReadonlySet<string>): Promise<boolean> {
  for (const key of changed) {
    const known = state.index.folders.get(key) as Listing | undefined;
    const path = known?.path;
    if (!known?.levels || path === undefined) return false;
    const current: Folder = { key, path, levels: known.levels };
    let listing: Listing;
    try {
      listing = await listingOf(state.index, key, path, state.slicer);
    } catch {
      return false;
    }
    if (listing.ino !== known.ino || folderNames(listing) !== folderNames(known)) return false;
    if (listing.hasIgnoreFile || known.hasIgnoreFile) {
      const base = key === '' ? '' : `${key}/`;
      const now = await new FolderRules().rulesOf(base, listing.hasIgnoreFile ? () => joinPath(path, '.gitignore') : undefined, state.slicer);
      const own = known.levels.at(-1);
      if (now !== (own?.base === base ? own.file : null)) return false;
    }
    listing.path = path;
    listing.levels = known.levels;
    if (listing !== known) {
      const listed = new Set(listing.entries.map((item) => item.segment));
      for (const item of known.entries) if (item.type !== 'folder' && !listed.has(item.segment) && item.key !== undefined) state.index.delete(item.key);
    }
    await visitEntries(state, listing, current, known.levels, () => undefined);
  }
  return true;
}

/** The pending files read, hashed and stored, with pauses between them. */
async function readAll(state: WalkState): Promise<void> {
  if (state.pending.length > 0) await state.context.budget.prepare();
  for (const item of state.pending) {
    await readPending(item, state);
    state.met++;
    if (state.slicer.step()) await state.breathe();
  }
  state.pending = [];
}

/**
 * Snapshots `folder`: brings its stat index up to date with it. Files the index vouches for cost one lstat, the
 * others are read, hashed and stored; entries of files gone (or ignored now) are dropped. With `changed` (the
 * folders its watch names since the last snapshot, whose rules `rules` are), only those are looked at, unless that
 * cannot stand for a full walk (then one is taken, with .gitignore files read afresh). Throws
 * SnapshotUnavailable (with the reason in words) when a cap is reached, the store is full or `signal` stops it;
 * the index then holds only entries that are true of the files (some not updated yet).
 */
export async function takeFolderSnapshot(folder: string, index: StatIndex, rules: FolderRules, context: SnapshotContext, changed?: ReadonlySet<string>): Promise<FolderSnapshot> {
  stopped(context.signal);
  const slicer = new WalkSlicer(context.pause);
  const state: WalkState = {
    folder,
    index,
    rules,
    context,
    slicer,
    walk: index.beginWalk(),
    breathe: async () => {
      await slicer.pause();
      stopped(context.signal);
    },
    files: 0,
    met: 0,
    pending: [],
    unreadableKeys: [],
    unreadable: [],
    keptBytes: 0,
    matching: new MatchBudget(),
    device: undefined,
  };
  if (changed) {
    if (await walkChanged(state, changed)) {
      await readAll(state);
      return { folder, rules, unreadable: [], overBudget: state.matching.exceeded, partial: true };
    }
    // What the look at changed folders left to read, the full walk finds again, under the .gitignore files as they are now.
    state.pending = [];
    state.rules = new FolderRules();
  }
  state.walk = index.beginWalk();
  state.met = 0;
  await walkAll(state);
  await readAll(state);
  if (state.met < index.entries.size) index.dropUnmet(state.walk, state.unreadableKeys);
  return { folder, rules: state.rules, unreadable: state.unreadable, overBudget: state.matching.exceeded, partial: false };
}
