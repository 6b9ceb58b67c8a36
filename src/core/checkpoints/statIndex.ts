// The stat index of one workspace folder (like git's index): each file's size, times, inode and content hash, so an unchanged file is never read again; what changed is journaled, and written to disk as appended lines.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { IndexJournal, type IndexMark, type JournalChange } from './indexJournal';

export type { IndexMark } from './indexJournal';

/**
 * What the index knows of one file (a snapshot's state of it, too): its stats when it was read, and what it held
 * then. Made by fileEntry only, so that every entry has the same shape (the walk reads tens of thousands a time).
 */
export interface IndexedFile extends FileStamp {
  /** sha-256 of the bytes (for a link: of its target); "" when they were not hashed (above the hashing cap, or unreadable). */
  sha256: string;
  /** The bytes are in the blob store. */
  stored: boolean;
  /** When the file was read (epoch ms). */
  readAt: number;
  /** A symbolic link (its target hashed, never followed nor stored). */
  link: boolean;
  /** The walk that last met the file (StatIndex.beginWalk); kept in memory only. */
  walk: number;
  /** A newer entry replaced this one or it was dropped: a listing holding it looks the key up again. */
  replaced: boolean;
}

/** An index entry (the only way one is made). */
export function fileEntry(stat: FileStamp, readAt: number, sha256: string, stored: boolean, link = false, walk = 0): IndexedFile {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode, sha256, stored, readAt, link, walk, replaced: false };
}

/** The stats the index compares. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
}

/** One change the index took (see IndexJournal). */
export type IndexChange = JournalChange<IndexedFile>;

/**
 * A file modified less than this before it was read may be modified again within the same timestamp, unseen: its
 * entry is not trusted and the file is read again ("racily clean", as git says). Times in whole seconds come from a
 * coarse file system (FAT keeps two); finer ones still advance only with the kernel's clock tick (a few ms).
 */
export const RACY_MARGIN_MS = 2_000;
const FINE_RACY_MARGIN_MS = 50;

/** The file is written whole again once it holds this many lines more than entries (appended changes). */
const APPENDED_SLACK = 1_000;

function racyMargin(timeMs: number): number {
  return timeMs % 1000 === 0 ? RACY_MARGIN_MS : FINE_RACY_MARGIN_MS;
}

const HEADER = 'compaction-agent checkpoint index 1';
/** One entry: hash (or -), stored (0, 1, or l for a link), size, mtime, ctime, inode, mode, read time, key. */
const ENTRY_LINE = /^([0-9a-f]{64}|-) ([01l]) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (".*")$/;
/** A file no longer in the folder (or ignored now). */
const DROP_LINE = /^x (".*")$/;

function sameStamp(entry: FileStamp, stat: FileStamp): boolean {
  return entry.size === stat.size && entry.mtimeMs === stat.mtimeMs && entry.ctimeMs === stat.ctimeMs && entry.ino === stat.ino && entry.mode === stat.mode;
}

/** True when the file's stats cannot have changed since `entry` was read: the same stats, and not read racily close to a change. */
export function freshEntry(entry: IndexedFile, stat: FileStamp): boolean {
  return (
    entry.size === stat.size &&
    entry.mtimeMs === stat.mtimeMs &&
    entry.ctimeMs === stat.ctimeMs &&
    entry.ino === stat.ino &&
    entry.mode === stat.mode &&
    entry.mtimeMs <= entry.readAt - racyMargin(entry.mtimeMs) &&
    entry.ctimeMs <= entry.readAt - racyMargin(entry.ctimeMs)
  );
}

/** A folder's entries as last listed, with the folder's own stats then (kept in memory only). */
export interface FolderListing<T> extends FileStamp {
  readAt: number;
  entries: T[];
}

function entryLine(key: string, entry: IndexedFile): string {
  return [entry.sha256 || '-', entry.link ? 'l' : entry.stored ? 1 : 0, entry.size, entry.mtimeMs, entry.ctimeMs, entry.ino, entry.mode, entry.readAt, JSON.stringify(key)].join(' ');
}

function validKey(key: unknown): key is string {
  return typeof key === 'string' && key !== '' && !key.startsWith('/') && !key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
}

function keyOf(quoted: string): string | undefined {
  try {
    const key: unknown = JSON.parse(quoted);
    return validKey(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

export class StatIndex {
  readonly entries = new Map<string, IndexedFile>();
  /** Folder listings by key ("" for the top): one is used again while the folder's stats are unchanged. */
  readonly folders = new Map<string, FolderListing<unknown>>();
  /** Changes not written to the index file yet (null: dropped). */
  private readonly unsaved = new Map<string, IndexedFile | null>();
  /** Lines the index file holds (0: none written or read); appended changes add to it until it is written whole. */
  private fileLines = 0;
  private readonly journal = new IndexJournal<IndexedFile>();
  private walks = 0;

  /** Changed since it was last written. */
  get dirty(): boolean {
    return this.unsaved.size > 0;
  }

  /** The entry of `key` when the file's stats say it cannot have changed since it was read (and it was not read racily). */
  fresh(key: string, stat: FileStamp, known?: IndexedFile): IndexedFile | undefined {
    const entry = known ?? this.entries.get(key);
    return entry && freshEntry(entry, stat) ? entry : undefined;
  }

  /** True when the folder's stats are those of its kept listing, and it was not listed racily close to a change. */
  freshFolder(listing: FolderListing<unknown>, stat: FileStamp): boolean {
    return sameStamp(listing, stat) && listing.mtimeMs <= listing.readAt - racyMargin(listing.mtimeMs) && listing.ctimeMs <= listing.readAt - racyMargin(listing.ctimeMs);
  }

  /** Starts a walk: the files it meets are stamped with the number returned (see dropUnmet). */
  beginWalk(): number {
    return ++this.walks;
  }

  set(key: string, entry: IndexedFile): void {
    const before = this.entries.get(key);
    if (before && before !== entry) before.replaced = true;
    this.entries.set(key, entry);
    this.unsaved.set(key, entry);
    this.journal.record(key, before, entry);
  }

  delete(key: string): void {
    const before = this.entries.get(key);
    if (!before) return;
    before.replaced = true;
    this.entries.delete(key);
    this.unsaved.set(key, null);
    this.journal.record(key, before, undefined);
  }

  /** Drops the entries of files walk `walk` did not meet (deleted, or ignored now), except below the folders `unwalked` (keys). */
  dropUnmet(walk: number, unwalked: readonly string[] = []): void {
    const prefixes = unwalked.map((key) => `${key}/`);
    for (const [key, entry] of this.entries) {
      if (entry.walk === walk || (prefixes.length > 0 && prefixes.some((prefix) => key.startsWith(prefix)))) continue;
      this.delete(key);
    }
  }

  /** Marks the index as it is now: changesSince gives what changed after it, until it is released. */
  mark(): IndexMark {
    return this.journal.mark();
  }

  release(mark: IndexMark): void {
    this.journal.release(mark);
  }

  /** Every key that changed since `mark`, once (see IndexJournal.changesSince); undefined when the mark expired. */
  changesSince(mark: IndexMark): IndexChange[] | undefined {
    return this.journal.changesSince(mark);
  }

  /** One line per file; every stored hash is written out in full, which is what keeps its blob from being collected. */
  serialize(folder: string): string {
    const lines = [`${HEADER} ${JSON.stringify(folder)}`];
    for (const [key, entry] of this.entries) lines.push(entryLine(key, entry));
    return `${lines.join('\n')}\n`;
  }

  /** The index in `text` when it is one of `folder`; lines that do not parse are left out (they are read again). Later lines win. */
  static parse(text: string, folder: string): StatIndex {
    const index = new StatIndex();
    const lines = text.split('\n');
    if (lines[0] !== `${HEADER} ${JSON.stringify(folder)}`) return index;
    for (const line of lines.slice(1)) {
      const dropped = DROP_LINE.exec(line);
      if (dropped) {
        const key = keyOf(dropped[1] as string);
        if (key !== undefined) index.entries.delete(key);
        continue;
      }
      const match = ENTRY_LINE.exec(line);
      if (!match) continue;
      const numbers = match.slice(3, 9).map(Number);
      const key = keyOf(match[9] as string);
      if (!numbers.every(Number.isFinite) || key === undefined) continue;
      const [size, mtimeMs, ctimeMs, ino, mode, readAt] = numbers as [number, number, number, number, number, number];
      const sha256 = match[1] === '-' ? '' : (match[1] as string);
      index.entries.set(key, fileEntry({ size, mtimeMs, ctimeMs, ino, mode }, readAt, sha256, match[2] === '1' && sha256 !== '', match[2] === 'l'));
    }
    index.fileLines = lines.length - 1;
    return index;
  }

  /** Reads the index file; a missing or foreign one gives an empty index. */
  static async load(file: string, folder: string): Promise<StatIndex> {
    try {
      return StatIndex.parse(await readFile(file, 'utf8'), folder);
    } catch {
      return new StatIndex();
    }
  }

  /**
   * Writes what changed since the last write: appended to the file as lines (a later line wins), or the whole index
   * (temp file and rename) when there is no file yet or the appended lines outgrow the entries.
   */
  async save(file: string, folder: string): Promise<void> {
    const changes = [...this.unsaved];
    this.unsaved.clear();
    try {
      if (this.fileLines > 0 && this.fileLines + changes.length <= 2 * this.entries.size + APPENDED_SLACK && (await this.append(file, changes))) return;
      await this.writeWhole(file, folder);
    } catch (error) {
      for (const [key, entry] of changes) if (!this.unsaved.has(key)) this.unsaved.set(key, entry);
      throw error;
    }
  }

  /** Appends the changes to an existing index file; false when there is none (it is then written whole). */
  private async append(file: string, changes: ReadonlyArray<[string, IndexedFile | null]>): Promise<boolean> {
    let handle;
    try {
      handle = await open(file, constants.O_WRONLY | constants.O_APPEND);
    } catch {
      return false;
    }
    try {
      await handle.writeFile(changes.map(([key, entry]) => `${entry ? entryLine(key, entry) : `x ${JSON.stringify(key)}`}\n`).join(''));
    } finally {
      await handle.close();
    }
    this.fileLines += changes.length;
    return true;
  }

  private async writeWhole(file: string, folder: string): Promise<void> {
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(nodePath.dirname(file), { recursive: true });
      await writeFile(temp, this.serialize(folder));
      await rename(temp, file);
      this.fileLines = this.entries.size + 1;
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
  }
}
