// The stat index of one workspace folder (like git's index): each file's size, times, inode and content hash, so an unchanged file is never read again.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as nodePath from 'node:path';

/** What the index knows of one file: its stats when it was read, and what it held then. */
export interface IndexedFile {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  /** sha-256 of the bytes; "" when they were not hashed (above the hashing cap, or unreadable). */
  sha256: string;
  /** The bytes are in the blob store. */
  stored: boolean;
  /** When the file was read (epoch ms). */
  readAt: number;
}

/** The stats the index compares. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
}

/**
 * A file modified less than this before it was read may be modified again within the same timestamp, unseen: its
 * entry is not trusted and the file is read again ("racily clean", as git says). Times in whole seconds come from a
 * coarse file system (FAT keeps two); finer ones still advance only with the kernel's clock tick (a few ms).
 */
export const RACY_MARGIN_MS = 2_000;
const FINE_RACY_MARGIN_MS = 50;

function racyMargin(timeMs: number): number {
  return timeMs % 1000 === 0 ? RACY_MARGIN_MS : FINE_RACY_MARGIN_MS;
}

const HEADER = 'compaction-agent checkpoint index 1';

function sameStamp(entry: FileStamp, stat: FileStamp): boolean {
  return entry.size === stat.size && entry.mtimeMs === stat.mtimeMs && entry.ctimeMs === stat.ctimeMs && entry.ino === stat.ino && entry.mode === stat.mode;
}

/** A folder's entries as last listed, with the folder's own stats then (kept in memory only). */
export interface FolderListing<T> extends FileStamp {
  readAt: number;
  entries: T[];
}

export class StatIndex {
  readonly entries = new Map<string, IndexedFile>();
  /** Folder listings by key ("" for the top): one is used again while the folder's stats are unchanged. */
  readonly folders = new Map<string, FolderListing<unknown>>();
  /** Changed since it was last written. */
  dirty = false;

  /** The entry of `key` when the file's stats say it cannot have changed since it was read (and it was not read racily). */
  fresh(key: string, stat: FileStamp, known?: IndexedFile): IndexedFile | undefined {
    const entry = known ?? this.entries.get(key);
    if (!entry || !sameStamp(entry, stat)) return undefined;
    if (entry.mtimeMs > entry.readAt - racyMargin(entry.mtimeMs) || entry.ctimeMs > entry.readAt - racyMargin(entry.ctimeMs)) return undefined;
    return entry;
  }

  /** True when the folder's stats are those of its kept listing, and it was not listed racily close to a change. */
  freshFolder(listing: FolderListing<unknown>, stat: FileStamp): boolean {
    if (!sameStamp(listing, stat)) return false;
    return listing.mtimeMs <= listing.readAt - racyMargin(listing.mtimeMs) && listing.ctimeMs <= listing.readAt - racyMargin(listing.ctimeMs);
  }

  set(key: string, entry: IndexedFile): void {
    this.entries.set(key, entry);
    this.dirty = true;
  }

  /** Drops the entries of files a complete walk did not meet (deleted, or ignored now). */
  keepOnly(seen: { has(key: string): boolean }): void {
    for (const key of this.entries.keys()) {
      if (seen.has(key)) continue;
      this.entries.delete(key);
      this.dirty = true;
    }
  }

  /** One line per file; every stored hash is written out in full, which is what keeps its blob from being collected. */
  serialize(folder: string): string {
    const lines = [`${HEADER} ${JSON.stringify(folder)}`];
    for (const [key, entry] of this.entries) {
      lines.push([entry.sha256 || '-', entry.stored ? 1 : 0, entry.size, entry.mtimeMs, entry.ctimeMs, entry.ino, entry.mode, entry.readAt, JSON.stringify(key)].join(' '));
    }
    return `${lines.join('\n')}\n`;
  }

  /** The index in `text` when it is one of `folder`; lines that do not parse are left out (they are read again). */
  static parse(text: string, folder: string): StatIndex {
    const index = new StatIndex();
    const lines = text.split('\n');
    if (lines[0] !== `${HEADER} ${JSON.stringify(folder)}`) return index;
    for (const line of lines.slice(1)) {
      const match = /^([0-9a-f]{64}|-) ([01]) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (".*")$/.exec(line);
      if (!match) continue;
      const numbers = match.slice(3, 9).map(Number);
      if (!numbers.every(Number.isFinite)) continue;
      let key: unknown;
      try {
        key = JSON.parse(match[9] as string);
      } catch {
        continue;
      }
      if (typeof key !== 'string' || key === '' || key.startsWith('/') || key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) continue;
      const [size, mtimeMs, ctimeMs, ino, mode, readAt] = numbers as [number, number, number, number, number, number];
      const sha256 = match[1] === '-' ? '' : (match[1] as string);
      index.entries.set(key, { size, mtimeMs, ctimeMs, ino, mode, sha256, stored: match[2] === '1' && sha256 !== '', readAt });
    }
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

  /** Writes the index file whole (temp file and rename). */
  async save(file: string, folder: string): Promise<void> {
    this.dirty = false;
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(nodePath.dirname(file), { recursive: true });
      await writeFile(temp, this.serialize(folder));
      await rename(temp, file);
    } catch (error) {
      this.dirty = true;
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
  }
}
