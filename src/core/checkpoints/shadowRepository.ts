// A shadow git repository in the extension's storage that snapshots one workspace folder (never the user's own .git).
import { lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { GitOutput, GitRunner } from './gitRunner';

/** A snapshot taken (its commit in the shadow repository), or why none could be. */
export type Snapshot = { commit: string } | { unavailable: string };

/** What one shadow repository may take: beyond either cap the folder is not snapshotted (and the picker says so). */
export interface SnapshotCaps {
  maxFiles: number;
  /** Sum of the sizes of the files a snapshot would hold (those .gitignore does not exclude). */
  maxBytes: number;
}

export const DEFAULT_SNAPSHOT_CAPS: SnapshotCaps = { maxFiles: 20_000, maxBytes: 200 * 1024 * 1024 };

/** One file that differs between two snapshots: A added, D deleted, M modified (T: type changed). */
export interface SnapshotDifference {
  status: 'A' | 'D' | 'M' | 'T';
  /** Path relative to the folder, with forward slashes. */
  path: string;
  /** False for a symbolic link or a nested repository on either side: its content is not a file's text. */
  regular: boolean;
}

/** Git's modes of a regular file (plain or executable), and "absent". */
const REGULAR_MODES = new Set(['100644', '100755', '000000']);

/** Settings for every invocation: no line-ending or path-quoting surprises, no file-system monitor, no signing. */
const STABLE_CONFIG = ['-c', 'core.autocrlf=false', '-c', 'core.safecrlf=false', '-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false', '-c', 'commit.gpgsign=false'];

const SNAPSHOT_REF = 'refs/heads/snapshots';

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function failure(what: string, output: GitOutput): string {
  if (output.startError) return output.startError;
  const detail = output.stderr.trim().split('\n')[0] ?? '';
  return `git ${what} failed${detail ? `: ${detail}` : ''}`;
}

/** Splits NUL-separated git output. */
function fields(output: Buffer): string[] {
  return output.toString('utf8').split('\0').filter((field) => field !== '');
}

/**
 * Snapshots of one folder, kept in `gitDir` (inside the extension's storage) with the folder as work tree:
 * `git --git-dir=<gitDir> --work-tree=<folder>`. The folder's .gitignore files are respected; a folder above
 * the caps, or a machine without git, gets `{ unavailable }` with the reason in words. Snapshots of one
 * repository are taken one at a time (they share its index).
 */
export class ShadowRepository {
  private queue: Promise<unknown> = Promise.resolve();
  private ready: Promise<string | undefined> | undefined;

  constructor(
    private readonly git: GitRunner,
    readonly gitDir: string,
    readonly folder: string,
    private readonly caps: SnapshotCaps = DEFAULT_SNAPSHOT_CAPS,
  ) {}

  private run(args: readonly string[], signal?: AbortSignal): Promise<GitOutput> {
    return this.git.run([...STABLE_CONFIG, `--git-dir=${this.gitDir}`, `--work-tree=${this.folder}`, '-C', this.folder, ...args], signal ? { signal } : {});
  }

  /** Creates the repository on first use; resolves to why it cannot be, or undefined when it is ready. */
  private prepare(): Promise<string | undefined> {
    this.ready ??= (async () => {
      await mkdir(nodePath.dirname(this.gitDir), { recursive: true });
      const init = await this.git.run([`--git-dir=${this.gitDir}`, 'init', '--quiet']);
      if (init.code !== 0) return failure('init', init);
      for (const [key, value] of [['user.name', 'Compaction Agent'], ['user.email', 'checkpoints@compaction-agent.invalid'], ['gc.auto', '0']] as const) {
        const set = await this.git.run([`--git-dir=${this.gitDir}`, 'config', key, value]);
        if (set.code !== 0) return failure('config', set);
      }
      // Nested repositories and the folder's own .git are never snapshotted.
      await writeFile(nodePath.join(this.gitDir, 'info', 'exclude'), '.git\n', 'utf8').catch(() => undefined);
      // Snapshots of this repository run one at a time in this process: a lock left now is from one that crashed.
      await rm(nodePath.join(this.gitDir, 'index.lock'), { force: true }).catch(() => undefined);
      return undefined;
    })();
    return this.ready;
  }

  /** Why the folder is too large to snapshot, or undefined when it fits the caps. */
  private async overCaps(signal?: AbortSignal): Promise<string | undefined> {
    const listed = await this.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], signal);
    if (listed.code !== 0) return failure('ls-files', listed);
    const files = [...new Set(fields(listed.stdout))];
    if (files.length > this.caps.maxFiles) return `the folder has ${files.length.toLocaleString('en-US')} files not excluded by .gitignore, above the ${this.caps.maxFiles.toLocaleString('en-US')} a command snapshot takes`;
    let bytes = 0;
    for (let start = 0; start < files.length; start += 64) {
      const sizes = await Promise.all(files.slice(start, start + 64).map((file) => lstat(nodePath.join(this.folder, file)).then((stat) => (stat.isFile() ? stat.size : 0), () => 0)));
      for (const size of sizes) bytes += size;
      if (bytes > this.caps.maxBytes) return `the folder holds more than ${megabytes(this.caps.maxBytes)} of files not excluded by .gitignore, above what a command snapshot takes`;
    }
    return undefined;
  }

  /** Records the folder as it is now. */
  snapshot(message: string, signal?: AbortSignal): Promise<Snapshot> {
    const next = this.queue.then(() => this.take(message, signal));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async take(message: string, signal?: AbortSignal): Promise<Snapshot> {
    const unprepared = await this.prepare();
    if (unprepared) {
      // A missing git may be installed later: try again next time.
      this.ready = undefined;
      return { unavailable: unprepared };
    }
    const tooLarge = await this.overCaps(signal);
    if (tooLarge) return { unavailable: tooLarge };
    const added = await this.run(['add', '--all', '--ignore-errors', '--', '.'], signal);
    if (added.code !== 0 && added.code !== 1) return { unavailable: failure('add', added) };
    const tree = await this.run(['write-tree'], signal);
    if (tree.code !== 0) return { unavailable: failure('write-tree', tree) };
    const parent = await this.run(['rev-parse', '--verify', '--quiet', SNAPSHOT_REF]);
    const parentArgs = parent.code === 0 ? ['-p', parent.stdout.toString('utf8').trim()] : [];
    const commit = await this.run(['commit-tree', tree.stdout.toString('utf8').trim(), ...parentArgs, '-m', message], signal);
    if (commit.code !== 0) return { unavailable: failure('commit-tree', commit) };
    const id = commit.stdout.toString('utf8').trim();
    const updated = await this.run(['update-ref', SNAPSHOT_REF, id]);
    if (updated.code !== 0) return { unavailable: failure('update-ref', updated) };
    return { commit: id };
  }

  /** The files that differ between two snapshots of this folder. */
  async differences(from: string, to: string): Promise<SnapshotDifference[]> {
    const diff = await this.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]);
    if (diff.code !== 0) throw new Error(failure('diff-tree', diff));
    const parts = fields(diff.stdout);
    const found: SnapshotDifference[] = [];
    // Each change is ":<old mode> <new mode> <old id> <new id> <status>" then the path.
    for (let index = 0; index + 1 < parts.length; index += 2) {
      const [oldMode = '', newMode = '', , , status = ''] = (parts[index] as string).replace(/^:/, '').split(' ');
      const kind = status.charAt(0);
      if (kind !== 'A' && kind !== 'D' && kind !== 'M' && kind !== 'T') continue;
      found.push({ status: kind, path: parts[index + 1] as string, regular: REGULAR_MODES.has(oldMode) && REGULAR_MODES.has(newMode) });
    }
    return found;
  }

  /** The size in bytes of `path` in snapshot `commit`, or null when it is not there. */
  async sizeOf(commit: string, path: string): Promise<number | null> {
    const size = await this.run(['cat-file', '-s', `${commit}:${path}`]);
    if (size.code !== 0) return null;
    return Number(size.stdout.toString('utf8').trim());
  }

  /** The bytes of `path` in snapshot `commit`, or null when it is not there. */
  async contentOf(commit: string, path: string): Promise<Buffer | null> {
    const blob = await this.run(['cat-file', 'blob', `${commit}:${path}`]);
    return blob.code === 0 ? blob.stdout : null;
  }
}
