// WorkspaceAccess on node:fs and child_process, for tests, the CLI and the demo.
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { SKIPPED_FOLDERS, globToRegExp } from './globPattern';
import { resolveSafely } from './pathSafety';
import { runShellCommand } from './shellCommand';
import type { ConfirmChange, DirEntry, TextEdit, TextMatch, WorkspaceAccess, WorkspaceFileStat } from './workspaceAccess';
import { compilePattern, WorkspaceRefusal } from './workspaceAccess';

export interface NodeWorkspaceOptions {
  trusted: boolean;
  confirm: ConfirmChange;
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Yields workspace-relative file paths below each root, skipping symlinks and SKIPPED_FOLDERS. */
async function* walkFiles(roots: readonly string[], signal?: AbortSignal): AsyncGenerator<{ absolute: string; relative: string }> {
  for (const root of roots) {
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
        if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) pending.push(relative);
        else if (entry.isFile()) yield { absolute: nodePath.join(root, relative), relative };
      }
    }
  }
}

export function nodeWorkspaceAccess(rootPaths: readonly string[], options: NodeWorkspaceOptions): WorkspaceAccess {
  const roots = rootPaths.map((root) => nodePath.resolve(root));
  const resolve = (raw: string): Promise<string> => resolveSafely(raw, roots).then((resolved) => resolved.absolute);
  const requireTrust = (what: string): void => {
    if (!options.trusted) throw new WorkspaceRefusal(`Refused to ${what}: the workspace is not trusted (Restricted Mode).`);
  };
  const confirmed = async (allowed: Promise<boolean>, what: string): Promise<void> => {
    if (!(await allowed)) throw new WorkspaceRefusal(`The user declined to ${what}.`);
  };
  return {
    roots: () => [...roots],
    isTrusted: () => options.trusted,
    async readFile(path) {
      return fs.readFile(await resolve(path), 'utf8');
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
    async findFiles(glob, limit, signal) {
      const matcher = globToRegExp(glob);
      const found: string[] = [];
      for await (const file of walkFiles(roots, signal)) {
        if (matcher.test(file.relative)) found.push(file.relative);
        if (found.length >= limit) break;
      }
      return found;
    },
    async searchText(pattern, search) {
      const regex = compilePattern(pattern, search.isRegex);
      const matcher = search.glob ? globToRegExp(search.glob) : undefined;
      const matches: TextMatch[] = [];
      for await (const file of walkFiles(roots, search.signal)) {
        if (matcher && !matcher.test(file.relative)) continue;
        const data = await fs.readFile(file.absolute).catch(() => undefined);
        if (!data || data.subarray(0, 8000).includes(0)) continue; // unreadable or binary
        const lines = data.toString('utf8').split(/\r?\n/);
        for (let index = 0; index < lines.length && matches.length < search.limit; index++) {
          const line = lines[index] ?? '';
          if (regex.test(line)) matches.push({ path: file.relative, line: index + 1, text: line });
        }
        if (matches.length >= search.limit) break;
      }
      return matches;
    },
    async writeFile(path, text, signal) {
      requireTrust('write files');
      const absolute = await resolve(path);
      const before = await fs.readFile(absolute, 'utf8').catch(() => undefined);
      const request = { kind: 'write', path: absolute, created: before === undefined, before: before ?? '', after: text } as const;
      await confirmed(options.confirm(request, signal), `write ${path}`);
      await fs.mkdir(nodePath.dirname(absolute), { recursive: true });
      await fs.writeFile(absolute, text, 'utf8');
    },
    async applyEdit(path, edit: TextEdit, signal) {
      requireTrust('edit files');
      const absolute = await resolve(path);
      const before = await fs.readFile(absolute, 'utf8');
      if (before.slice(edit.offset, edit.offset + edit.oldText.length) !== edit.oldText) {
        throw new WorkspaceRefusal(`${path} changed since it was read; read it again and retry the edit.`);
      }
      const after = before.slice(0, edit.offset) + edit.newText + before.slice(edit.offset + edit.oldText.length);
      await confirmed(options.confirm({ kind: 'edit', path: absolute, before, after }, signal), `edit ${path}`);
      await fs.writeFile(absolute, after, 'utf8');
    },
    async runCommand(command, commandOptions) {
      requireTrust('run commands');
      const cwd = await resolve(commandOptions.cwd ?? '.');
      await confirmed(options.confirm({ kind: 'command', command, cwd }, commandOptions.signal), `run \`${command}\``);
      return runShellCommand(command, { ...commandOptions, cwd });
    },
  };
}
