// WorkspaceAccess on node:fs and child_process, for tests, the CLI and the demo.
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { compileGlob, SKIPPED_FOLDERS } from '../../src/core/tools/globPattern';
import { IgnoreRules, loadIgnoreRules } from '../../src/core/tools/ignoreRules';
import type { SafePath } from '../../src/core/tools/pathSafety';
import { resolveSafely } from '../../src/core/tools/pathSafety';
import { readRegularFile, readRegularText, writeFileAtomically } from '../../src/core/tools/safeFileIo';
import { runShellCommand } from '../../src/core/tools/shellCommand';
import type { SearchCandidate } from '../../src/core/tools/textSearch';
import { SEARCH_LIMITS, searchCandidates } from '../../src/core/tools/textSearch';
import type { ConfirmChange, DirEntry, SearchOptions, SearchResult, TextEdit, WorkspaceAccess, WorkspaceFileStat } from '../../src/core/tools/workspaceAccess';
import { compilePattern, WorkspaceRefusal } from '../../src/core/tools/workspaceAccess';

export interface NodeWorkspaceOptions {
  trusted: boolean;
  confirm: ConfirmChange;
  /** Globs (relative to each root) that find_files and search_text skip, like VS Code's files.exclude. */
  excludes?: readonly string[];
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface WalkedFile {
  absolute: string;
  relative: string;
}

/** Yields workspace-relative file paths below each root, skipping symlinks, SKIPPED_FOLDERS and ignored entries. */
async function* walkFiles(roots: readonly string[], rulesFor: (root: string) => Promise<IgnoreRules>, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
  for (const root of roots) {
    const rules = await rulesFor(root);
    const pending: string[] = [''];
    while (pending.length > 0) {
      if (signal?.aborted) return;
      const folder = pending.shift() ?? '';
      let entries;
      try {
        entries = await fs.readdir(nodePath.join(root, folder), { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => byName(a.name, b.name));
      for (const entry of entries) {
        const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (!(entry.isDirectory() || entry.isFile()) || rules.ignoresEntry(relative, entry.isDirectory())) continue;
        if (entry.isFile()) yield { absolute: nodePath.join(root, relative), relative };
        else if (!SKIPPED_FOLDERS.has(entry.name)) pending.push(relative);
      }
    }
  }
}

/** A missing file reads as undefined; anything else that stops a read (a FIFO, a hard link) is thrown. */
function absentAsUndefined(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw error;
}

async function findFiles(roots: readonly string[], excludes: readonly string[], find: { glob: string; limit: number; signal?: AbortSignal }): Promise<string[]> {
  const matcher = compileGlob(find.glob);
  const rules = new IgnoreRules([], excludes);
  const found: string[] = [];
  for await (const file of walkFiles(roots, () => Promise.resolve(rules), find.signal)) {
    if (matcher.test(file.relative)) found.push(file.relative);
    if (found.length >= find.limit) break;
  }
  return found;
}

/** Walks the roots (skipping .gitignore'd and excluded entries) and searches each readable file off the thread. */
async function searchText(roots: readonly string[], excludes: readonly string[], pattern: string, search: SearchOptions): Promise<SearchResult> {
  const regex = compilePattern(pattern, search.isRegex);
  const matcher = search.glob ? compileGlob(search.glob) : undefined;
  const files = walkFiles(roots, (root) => loadIgnoreRules(root, excludes), search.signal);
  async function* candidates(): AsyncGenerator<SearchCandidate> {
    for await (const file of files) {
      if (matcher && !matcher.test(file.relative)) continue;
      const read = (): Promise<string | undefined> =>
        readRegularFile(file.absolute, file.relative, SEARCH_LIMITS.maxFileBytes).then(
          (data) => data.toString('utf8'),
          () => undefined,
        );
      yield { relative: file.relative, read };
    }
  }
  return searchCandidates(candidates(), { pattern, regex, limit: search.limit, signal: search.signal });
}

export function nodeWorkspaceAccess(rootPaths: readonly string[], options: NodeWorkspaceOptions): WorkspaceAccess {
  const roots = rootPaths.map((root) => nodePath.resolve(root));
  const excludes = options.excludes ?? [];
  const resolve = (raw: string): Promise<string> => resolveSafely(raw, roots).then((resolved) => resolved.absolute);
  const requireTrust = (what: string): void => {
    if (!options.trusted) throw new WorkspaceRefusal(`Refused to ${what}: the workspace is not trusted (Restricted Mode).`);
  };
  const confirmed = async (allowed: Promise<boolean>, what: string): Promise<void> => {
    if (!(await allowed)) throw new WorkspaceRefusal(`The user declined to ${what}.`);
  };
  /** After the confirmation: `path` must still land where it did when the person was asked. */
  const sameTarget = async (path: string, asked: SafePath): Promise<void> => {
    if ((await resolveSafely(path, roots)).real !== asked.real) {
      throw new WorkspaceRefusal(`Refused ${JSON.stringify(path)}: it now resolves elsewhere than when the change was confirmed.`);
    }
  };
  return {
    roots: () => [...roots],
    isTrusted: () => options.trusted,
    async readFile(path) {
      return readRegularText(await resolve(path), path);
    },
    async stat(path): Promise<WorkspaceFileStat> {
      const stats = await fs.stat(await resolve(path));
      return { kind: stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other', size: stats.size, mtimeMs: stats.mtimeMs };
    },
    async listDir(path): Promise<DirEntry[]> {
      const entries = await fs.readdir(await resolve(path), { withFileTypes: true });
      return entries
        .map((entry): DirEntry => ({
          name: entry.name,
          kind: entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other',
        }))
        .sort((a, b) => Number(b.kind === 'directory') - Number(a.kind === 'directory') || byName(a.name, b.name));
    },
    findFiles: (glob, limit, signal) => findFiles(roots, excludes, { glob, limit, signal }),
    searchText: (pattern, search) => searchText(roots, excludes, pattern, search),
    async writeFile(path, text, signal) {
      requireTrust('write files');
      const target = await resolveSafely(path, roots);
      const before = await readRegularText(target.real, path).catch(absentAsUndefined);
      const request = { kind: 'write', path: target.absolute, created: before === undefined, before: before ?? '', after: text } as const;
      await confirmed(options.confirm(request, signal), `write ${path}`);
      await sameTarget(path, target);
      await fs.mkdir(nodePath.dirname(target.real), { recursive: true });
      await writeFileAtomically(target.real, text, roots, path);
    },
    async applyEdit(path, edit: TextEdit, signal) {
      requireTrust('edit files');
      const target = await resolveSafely(path, roots);
      const before = await readRegularText(target.real, path);
      if (before.slice(edit.offset, edit.offset + edit.oldText.length) !== edit.oldText) {
        throw new WorkspaceRefusal(`${path} changed since it was read; read it again and retry the edit.`);
      }
      const after = before.slice(0, edit.offset) + edit.newText + before.slice(edit.offset + edit.oldText.length);
      await confirmed(options.confirm({ kind: 'edit', path: target.absolute, before, after }, signal), `edit ${path}`);
      await sameTarget(path, target);
      if ((await readRegularText(target.real, path)) !== before) {
        throw new WorkspaceRefusal(`${path} changed while waiting for confirmation; read it again and retry.`);
      }
      await writeFileAtomically(target.real, after, roots, path);
    },
    async runCommand(command, commandOptions) {
      requireTrust('run commands');
      const cwd = await resolve(commandOptions.cwd ?? '.');
      await confirmed(options.confirm({ kind: 'command', command, cwd }, commandOptions.signal), `run \`${command}\``);
      return runShellCommand(command, { ...commandOptions, cwd });
    },
  };
}
