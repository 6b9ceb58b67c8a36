// One folder's entries as the snapshot walk reads them: listed in slices (no folder, however large, holds the event loop), kept while the folder's stats are unchanged, with the .gitignore decisions made under the same rules.
import { lstatSync, opendirSync, statSync, type Dirent } from 'node:fs';
import { FolderRules, type IgnoreFile, type IgnoreLevel } from './ignoreFiles';
import type { MatchBudget } from './matchSteps';
import { segmentOf } from './pathKeys';
import type { FolderListing, StatIndex } from './statIndex';
import type { WalkSlicer } from './walkSlices';

export type EntryType = 'folder' | 'file' | 'link' | 'other';

/** One entry of a folder listing: its key segment, the name the file system takes, and what it is. */
export interface Listed {
  segment: string;
  name: string | Buffer;
  type: EntryType;
  /** The entry's key, made once per listing: the same string every walk, whose hash the maps keep. */
  key?: string;
  /** The path the file system takes for it, made once per listing. */
  path?: string | Buffer;
}

/** A folder's listing, and which of its entries the .gitignore files above it ignore (kept while those files are the same). */
export interface Listing extends FolderListing<Listed> {
  hasIgnoreFile: boolean;
  judgedWith?: readonly IgnoreFile[];
  ignored?: Array<boolean | undefined>;
}

/** Entries buffered per read of the folder (node's Dir): each read is one short system call. */
const BUFFERED_ENTRIES = 256;

function typeOf(entry: Dirent): EntryType {
  if (entry.isDirectory()) return 'folder';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'link';
  return 'other';
}

/** The folder's entries, read a slice at a time (the walk pauses between slices, like readdir but never in one call). */
async function readEntries(path: string | Buffer, encoding: 'utf8' | 'buffer', slicer: WalkSlicer): Promise<Dirent[]> {
  const dir = opendirSync(path, { encoding: encoding as BufferEncoding, bufferSize: BUFFERED_ENTRIES });
  const entries: Dirent[] = [];
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      entries.push(entry);
      slicer.count('entries');
      if (slicer.due()) await slicer.pause();
    }
  } finally {
    dir.closeSync();
  }
  return entries;
}

/** A folder's entries; when a name is not UTF-8 (node shows such bytes as U+FFFD) the folder is listed again as bytes. */
async function listFolder(path: string | Buffer, slicer: WalkSlicer): Promise<Listed[]> {
  if (typeof path === 'string') {
    const listed = await readEntries(path, 'utf8', slicer);
    if (!listed.some((entry) => entry.name.includes('\uFFFD'))) return listed.map((entry) => ({ segment: entry.name, name: entry.name, type: typeOf(entry) }));
  }
  return (await readEntries(path, 'buffer', slicer)).map((entry) => {
    const raw = entry.name as unknown as Buffer;
    const segment = segmentOf(raw);
    return { segment, name: segment === raw.toString('utf8') ? segment : raw, type: typeOf(entry) };
  });
}

/**
 * The folder's listing: the one kept from the last walk while the folder's own stats are unchanged (adding,
 * removing or renaming an entry changes them), else read again. Not trusted when read racily close to a change.
 */
export async function listingOf(index: StatIndex, key: string, path: string | Buffer, slicer: WalkSlicer): Promise<Listing> {
  // The workspace folder itself may be a link to its folder; below it, links are never followed.
  const stat = key === '' ? statSync(path) : lstatSync(path);
  if (!stat.isDirectory()) throw new Error('not a folder');
  const kept = index.folders.get(key) as Listing | undefined;
  if (kept && index.freshFolder(kept, stat)) return kept;
  const listedAt = Date.now();
  const entries = await listFolder(path, slicer);
  const listing: Listing = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode, readAt: listedAt, entries, hasIgnoreFile: entries.some((item) => item.segment === '.gitignore') };
  index.folders.set(key, listing);
  return listing;
}

/** Keeps the listing's decisions when the same .gitignore files apply as at the last walk, else forgets them (once per folder walked). */
export function judgeWith(listing: Listing, levels: readonly IgnoreLevel[]): void {
  const files = levels.map((level) => level.file);
  const judged = listing.judgedWith;
  if (listing.ignored && judged && judged.length === files.length && judged.every((file, k) => file === files[k])) return;
  listing.judgedWith = files;
  listing.ignored = new Array<boolean | undefined>(listing.entries.length);
}

/**
 * Whether the entry at `at` is ignored by `levels` (those judgeWith was given): the decision of the last walk, else
 * judged now (within one entry's matching budget) and kept. One entry at a time, so the walk can pause between any two.
 */
export function ignoredAt(listing: Listing, at: number, levels: readonly IgnoreLevel[], base: string, budget: MatchBudget): boolean {
  const item = listing.entries[at] as Listed;
  if (levels.length === 0 || item.type === 'other') return false;
  const decisions = listing.ignored ?? (listing.ignored = []);
  let decision = decisions[at];
  if (decision === undefined) {
    decision = FolderRules.ignored(levels, (item.key ??= base + item.segment), item.segment, item.type === 'folder', budget);
    decisions[at] = decision;
  }
  return decision;
}
