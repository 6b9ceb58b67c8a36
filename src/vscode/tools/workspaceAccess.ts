// WorkspaceAccess in VS Code: workspace.fs, findFiles, WorkspaceEdit (undoable, shown) and workspace trust.
import * as vscode from 'vscode';
import type { SafePath } from '../../core/tools/pathSafety';
import { resolveSafely } from '../../core/tools/pathSafety';
import { assertRegularFile, readRegularFile, readRegularText, verifyWriteTarget } from '../../core/tools/safeFileIo';
import { runShellCommand } from '../../core/tools/shellCommand';
import type { SearchCandidate } from '../../core/tools/textSearch';
import { SEARCH_LIMITS, searchCandidates } from '../../core/tools/textSearch';
import type { ConfirmChange, DirEntry, SearchOptions, TextEdit, WorkspaceAccess, WorkspaceFileStat } from '../../core/tools/workspaceAccess';
import { compilePattern, WorkspaceRefusal } from '../../core/tools/workspaceAccess';
import type { TerminalRunner } from './terminalRunner';
import { WorkspaceIgnores } from './workspaceIgnores';

const EXCLUDE = '**/{node_modules,.git,.hg,.svn}/**';

export function fileRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file').map((folder) => folder.uri.fsPath);
}

function tokenFor(signal: AbortSignal | undefined): vscode.CancellationTokenSource {
  const source = new vscode.CancellationTokenSource();
  if (signal?.aborted) source.cancel();
  else signal?.addEventListener('abort', () => source.cancel(), { once: true });
  return source;
}

/** A bare file name matches at any depth, as in the node implementation. */
function workspaceGlob(glob: string): string {
  const pattern = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  return pattern.includes('/') ? pattern : `**/${pattern}`;
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
}

/**
 * Open editors may hold unsaved changes: those are what the user sees, so the tools read them too. Other files
 * are read from disk only when they are regular, singly linked files (a FIFO would block the host forever).
 */
async function currentText(uri: vscode.Uri, shown: string): Promise<string> {
  return openDocument(uri)?.getText() ?? readRegularText(uri.fsPath, shown);
}

/** Right before a change is applied: `raw` still lands where it did when the person was asked, on an ordinary file. */
async function recheckTarget(raw: string, asked: SafePath): Promise<void> {
  const now = await resolveSafely(raw, fileRoots());
  if (now.real !== asked.real) throw new WorkspaceRefusal(`Refused ${JSON.stringify(raw)}: it now resolves elsewhere than when the change was confirmed.`);
  // A file about to be created may have no folder yet: VS Code creates it, below the ancestor resolveSafely checked.
  await verifyWriteTarget(now.real, fileRoots(), raw).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function applyAndSave(edit: vscode.WorkspaceEdit, uri: vscode.Uri, what: string): Promise<void> {
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code could not apply the change to ${what}.`);
  // Saved so that commands (tests, builds) run by the agent see the change.
  const document = vscode.workspace.textDocuments.find((candidate) => candidate.uri.toString() === uri.toString());
  if (document?.isDirty) await document.save();
}

/**
 * `terminal` is the visible runner when compactionAgent.tools.runCommandsInTerminal is on; without shell integration
 * it declines and the command runs hidden, with a note saying so.
 */
export function vscodeWorkspaceAccess(confirm: ConfirmChange, terminal?: TerminalRunner): WorkspaceAccess {
  const resolveTarget = (raw: string): Promise<SafePath> => resolveSafely(raw, fileRoots());
  const resolve = async (raw: string): Promise<vscode.Uri> => vscode.Uri.file((await resolveTarget(raw)).absolute);
  const requireTrust = (what: string): void => {
    if (!vscode.workspace.isTrusted) throw new WorkspaceRefusal(`Refused to ${what}: the workspace is not trusted (Restricted Mode).`);
  };
  const confirmed = async (allowed: Promise<boolean>, what: string): Promise<void> => {
    if (!(await allowed)) throw new WorkspaceRefusal(`The user declined to ${what} (skipped it when asked); nothing was changed.`);
  };
  /** Files matching the glob, at most `limit` before the exclude settings (and for a search, .gitignore) filter them. */
  const findUris = async (glob: string, limit: number, ignores: WorkspaceIgnores, signal?: AbortSignal): Promise<vscode.Uri[]> => {
    const source = tokenFor(signal);
    try {
      const uris = await vscode.workspace.findFiles(workspaceGlob(glob), EXCLUDE, limit, source.token);
      const kept: vscode.Uri[] = [];
      for (const uri of uris) if (uri.scheme === 'file' && !(await ignores.ignores(uri))) kept.push(uri);
      return kept.sort((a, b) => (a.fsPath < b.fsPath ? -1 : 1));
    } finally {
      source.dispose();
    }
  };
  return {
    roots: fileRoots,
    isTrusted: () => vscode.workspace.isTrusted,
    async readFile(path) {
      return currentText(await resolve(path), path);
    },
    async stat(path): Promise<WorkspaceFileStat> {
      const stat = await vscode.workspace.fs.stat(await resolve(path));
      const kind = stat.type & vscode.FileType.Directory ? 'directory' : stat.type & vscode.FileType.File ? 'file' : 'other';
      return { kind, size: stat.size, mtimeMs: stat.mtime };
    },
    async listDir(path): Promise<DirEntry[]> {
      const entries = await vscode.workspace.fs.readDirectory(await resolve(path));
      const kindOf = (type: vscode.FileType): DirEntry['kind'] =>
        type & vscode.FileType.SymbolicLink ? 'symlink' : type & vscode.FileType.Directory ? 'directory' : type & vscode.FileType.File ? 'file' : 'other';
      return entries
        .map(([name, type]): DirEntry => ({ name, kind: kindOf(type) }))
        .sort((a, b) => Number(b.kind === 'directory') - Number(a.kind === 'directory') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async findFiles(glob, limit, signal) {
      const uris = await findUris(glob, limit, new WorkspaceIgnores(false), signal);
      return uris.map((uri) => vscode.workspace.asRelativePath(uri, false));
    },
    async searchText(pattern, options: SearchOptions) {
      const regex = compilePattern(pattern, options.isRegex);
      const uris = await findUris(options.glob ?? '**/*', SEARCH_LIMITS.maxFiles + 1, new WorkspaceIgnores(true), options.signal);
      const candidates = uris.map((uri): SearchCandidate => {
        const relative = vscode.workspace.asRelativePath(uri, false);
        const fromDisk = (): Promise<string | undefined> =>
          readRegularFile(uri.fsPath, relative, SEARCH_LIMITS.maxFileBytes).then((data) => data.toString('utf8'), () => undefined);
        return { relative, read: () => Promise.resolve(openDocument(uri)?.getText()).then((text) => text ?? fromDisk()) };
      });
      return searchCandidates(candidates, { pattern, regex, limit: options.limit, signal: options.signal });
    },
    async writeFile(path, text, signal) {
      requireTrust('write files');
      const target = await resolveTarget(path);
      const uri = vscode.Uri.file(target.absolute);
      const created = !(await exists(uri));
      const before = created ? '' : await currentText(uri, path);
      await confirmed(confirm({ kind: 'write', path: uri.fsPath, created, before, after: text }, signal), `write ${path}`);
      // Checked before VS Code opens the file too: a target swapped for a FIFO would stall that open.
      await recheckTarget(path, target);
      const edit = new vscode.WorkspaceEdit();
      if (created) {
        edit.createFile(uri, { contents: new TextEncoder().encode(text) });
      } else {
        const document = await vscode.workspace.openTextDocument(uri);
        edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
      }
      await recheckTarget(path, target);
      await applyAndSave(edit, uri, path);
    },
    async applyEdit(path, change: TextEdit, signal) {
      requireTrust('edit files');
      const target = await resolveTarget(path);
      const uri = vscode.Uri.file(target.absolute);
      if (openDocument(uri) === undefined) await assertRegularFile(target.real, path);
      const document = await vscode.workspace.openTextDocument(uri);
      const before = document.getText();
      if (before.slice(change.offset, change.offset + change.oldText.length) !== change.oldText) {
        throw new WorkspaceRefusal(`${path} changed since it was read; read it again and retry the edit.`);
      }
      const after = before.slice(0, change.offset) + change.newText + before.slice(change.offset + change.oldText.length);
      await confirmed(confirm({ kind: 'edit', path: uri.fsPath, before, after }, signal), `edit ${path}`);
      if (document.getText() !== before) throw new WorkspaceRefusal(`${path} changed while waiting for confirmation; read it again and retry.`);
      const edit = new vscode.WorkspaceEdit();
      const range = new vscode.Range(document.positionAt(change.offset), document.positionAt(change.offset + change.oldText.length));
      edit.replace(uri, range, change.newText);
      await recheckTarget(path, target);
      await applyAndSave(edit, uri, path);
    },
    async runCommand(command, options) {
      requireTrust('run commands');
      const cwd = (await resolve(options.cwd ?? '.')).fsPath;
      await confirmed(confirm({ kind: 'command', command, cwd }, options.signal), `run \`${command}\``);
      const shown = terminal ? await terminal.run(command, cwd, options) : undefined;
      if (shown) return shown;
      const result = await runShellCommand(command, { ...options, cwd });
      return terminal ? { ...result, output: `[ran without the @agent terminal: its shell has no VS Code shell integration]\n${result.output}` } : result;
    },
  };
}
