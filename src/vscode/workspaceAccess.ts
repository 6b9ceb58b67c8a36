// WorkspaceAccess in VS Code: workspace.fs, findFiles, WorkspaceEdit (undoable, shown) and workspace trust.
import * as vscode from 'vscode';
import { resolveSafely } from '../core/tools/pathSafety';
import { runShellCommand } from '../core/tools/shellCommand';
import type { ConfirmChange, DirEntry, SearchOptions, TextEdit, TextMatch, WorkspaceAccess, WorkspaceFileStat } from '../core/tools/workspaceAccess';
import { compilePattern, WorkspaceRefusal } from '../core/tools/workspaceAccess';

const EXCLUDE = '**/{node_modules,.git,.hg,.svn}/**';
const SEARCH_FILE_LIMIT = 5000;

function fileRoots(): string[] {
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

/** Open editors may hold unsaved changes: those are what the user sees, so the tools read them too. */
async function currentText(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
  if (open) return open.getText();
  return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
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

export function vscodeWorkspaceAccess(confirm: ConfirmChange): WorkspaceAccess {
  const resolve = async (raw: string): Promise<vscode.Uri> => vscode.Uri.file((await resolveSafely(raw, fileRoots())).absolute);
  const requireTrust = (what: string): void => {
    if (!vscode.workspace.isTrusted) throw new WorkspaceRefusal(`Refused to ${what}: the workspace is not trusted (Restricted Mode).`);
  };
  const confirmed = async (allowed: Promise<boolean>, what: string): Promise<void> => {
    if (!(await allowed)) throw new WorkspaceRefusal(`The user declined to ${what}.`);
  };
  const findUris = async (glob: string, limit: number, signal?: AbortSignal): Promise<vscode.Uri[]> => {
    const source = tokenFor(signal);
    try {
      const uris = await vscode.workspace.findFiles(workspaceGlob(glob), EXCLUDE, limit, source.token);
      return uris.filter((uri) => uri.scheme === 'file').sort((a, b) => (a.fsPath < b.fsPath ? -1 : 1));
    } finally {
      source.dispose();
    }
  };
  return {
    roots: fileRoots,
    isTrusted: () => vscode.workspace.isTrusted,
    async readFile(path) {
      return currentText(await resolve(path));
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
      return (await findUris(glob, limit, signal)).map((uri) => vscode.workspace.asRelativePath(uri, false));
    },
    async searchText(pattern, options: SearchOptions) {
      const regex = compilePattern(pattern, options.isRegex);
      const matches: TextMatch[] = [];
      for (const uri of await findUris(options.glob ?? '**/*', SEARCH_FILE_LIMIT, options.signal)) {
        if (options.signal?.aborted || matches.length >= options.limit) break;
        const text = await currentText(uri).catch(() => undefined);
        if (text === undefined || text.slice(0, 8000).includes('\0')) continue;
        const lines = text.split(/\r?\n/);
        for (let index = 0; index < lines.length && matches.length < options.limit; index++) {
          const line = lines[index] ?? '';
          if (regex.test(line)) matches.push({ path: vscode.workspace.asRelativePath(uri, false), line: index + 1, text: line });
        }
      }
      return matches;
    },
    async writeFile(path, text, signal) {
      requireTrust('write files');
      const uri = await resolve(path);
      const created = !(await exists(uri));
      const before = created ? '' : await currentText(uri);
      await confirmed(confirm({ kind: 'write', path: uri.fsPath, created, before, after: text }, signal), `write ${path}`);
      const edit = new vscode.WorkspaceEdit();
      if (created) {
        edit.createFile(uri, { contents: new TextEncoder().encode(text) });
      } else {
        const document = await vscode.workspace.openTextDocument(uri);
        edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
      }
      await applyAndSave(edit, uri, path);
    },
    async applyEdit(path, change: TextEdit, signal) {
      requireTrust('edit files');
      const uri = await resolve(path);
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
      await applyAndSave(edit, uri, path);
    },
    async runCommand(command, options) {
      requireTrust('run commands');
      const cwd = (await resolve(options.cwd ?? '.')).fsPath;
      await confirmed(confirm({ kind: 'command', command, cwd }, options.signal), `run \`${command}\``);
      return runShellCommand(command, { ...options, cwd });
    },
  };
}
