// Which folders of a workspace folder changed since the last snapshot: an inotify watch per folder walked (Linux, local file systems only), so the snapshot before a command looks again only where something happened.
import { readFileSync, statfsSync, watch, type FSWatcher } from 'node:fs';

/**
 * File systems whose every change made on this machine reaches inotify (f_type of statfs): ext2/3/4, XFS, Btrfs,
 * tmpfs, F2FS, overlayfs, ZFS, bcachefs. Network and virtual ones (NFS, SMB, 9p and virtiofs as WSL and containers
 * mount host folders, FUSE) change without telling: there every snapshot looks at every file.
 */
const WATCHABLE_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0xf2f52010, 0x794c7630, 0x2fc12fc1, 0xca451a4e]);
/** Folders watched per workspace folder at most (each is one inotify watch of the user's, shared with VS Code's own watcher). */
const MAX_WATCHED_FOLDERS = 4096;
/** Past this many events since the last snapshot, it looks at every file (inotify drops events past its queue, silently for node). */
const MAX_EVENTS = 8000;

/** Lets every event the kernel queued before now reach the watchers: the second turn of the event loop polls for them. */
function eventsDelivered(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

function kernelLimit(name: string): number {
  try {
    const value = Number(readFileSync(`/proc/sys/fs/inotify/${name}`, 'utf8'));
    return Number.isFinite(value) && value > 0 ? value : 0;
  } catch {
    return 0;
  }
}

interface Watched {
  watcher: FSWatcher;
  /** The folder's inode when the watch was made: a folder replaced by another of the same name needs a new watch. */
  ino: number;
}

/**
 * The watch of one workspace folder. Folders are added by a walk that looks at every file (add, before listing the
 * folder: nothing that changes after it is missed); `changed` then says which folders had an event since it was last
 * asked, or undefined when the watch cannot vouch for the rest (not complete, off, or more events than it counts).
 * Folders holding a file with other hard links, or on another device than the workspace folder, are always named:
 * a change made there through another path raises no event here.
 */
export class FolderWatch {
  private readonly watched = new Map<string, Watched>();
  private dirty = new Set<string>();
  private readonly always = new Set<string>();
  private events = 0;
  private off = false;
  private readonly maxEvents: number;
  private readonly maxFolders: number;

  private constructor() {
    const queued = kernelLimit('max_queued_events');
    this.maxEvents = Math.min(MAX_EVENTS, queued > 0 ? Math.floor(queued / 2) : MAX_EVENTS);
    const watches = kernelLimit('max_user_watches');
    this.maxFolders = Math.min(MAX_WATCHED_FOLDERS, watches > 0 ? Math.floor(watches / 4) : MAX_WATCHED_FOLDERS);
  }

  /** A watch for the workspace folder `root`, or undefined where events cannot be relied on (not Linux, not a local file system). */
  static of(root: string): FolderWatch | undefined {
    if (process.platform !== 'linux') return undefined;
    try {
      return WATCHABLE_FILE_SYSTEMS.has(statfsSync(root).type) ? new FolderWatch() : undefined;
    } catch {
      return undefined;
    }
  }

  /** Watches the folder at `key` (its inode `ino`) unless it is watched already; past the cap or on any failure the watch turns off. */
  add(key: string, path: string | Buffer, ino: number): void {
    if (this.off) return;
    const known = this.watched.get(key);
    if (known?.ino === ino) return;
    known?.watcher.close();
    if (this.watched.size >= this.maxFolders) {
      this.stop();
      return;
    }
    try {
      const watcher = watch(path, { persistent: false, encoding: 'buffer' }, () => this.touched(key));
      watcher.on('error', () => {
        this.touched(key);
        this.watched.delete(key);
      });
      this.watched.set(key, { watcher, ino });
    } catch {
      this.stop();
    }
  }

  /** Names the folder at `key` at every question (a hard-linked file in it, or another device). */
  lookAlways(key: string): void {
    this.always.add(key);
  }

  /** Stops watching the folders not in `walked` (gone, or ignored now), and forgets the ones always named among them. */
  keepOnly(walked: ReadonlySet<string>): void {
    for (const [key, known] of this.watched) {
      if (walked.has(key)) continue;
      known.watcher.close();
      this.watched.delete(key);
    }
    for (const key of this.always) if (!walked.has(key)) this.always.delete(key);
  }

  private touched(key: string): void {
    this.events++;
    this.dirty.add(key);
  }

  /**
   * The folders with an event since the last question (and those always named), once every event queued before
   * now has arrived; undefined when the watch cannot vouch for the others. Starts counting anew either way.
   */
  async changed(): Promise<ReadonlySet<string> | undefined> {
    await eventsDelivered();
    const dirty = this.dirty;
    const overflowed = this.events > this.maxEvents;
    this.dirty = new Set();
    this.events = 0;
    if (this.off || overflowed || this.watched.size === 0) return undefined;
    for (const key of this.always) dirty.add(key);
    return dirty;
  }

  /** Forgets the events so far (a walk that looks at every file is starting). */
  async reset(): Promise<void> {
    await eventsDelivered();
    this.dirty = new Set();
    this.events = 0;
  }

  /** Closes every watch; `changed` answers undefined from now on. */
  stop(): void {
    this.off = true;
    for (const known of this.watched.values()) known.watcher.close();
    this.watched.clear();
    this.always.clear();
  }
}
