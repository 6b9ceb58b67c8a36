// What find_files and search_text skip in VS Code: files.exclude, search.exclude and each folder's root .gitignore.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { IgnoreRules, loadIgnoreRules } from '../../core/tools/ignoreRules';

/** The globs of an exclude setting that are switched on (conditional `{ when }` entries are left out). */
function enabledGlobs(section: string, folder: vscode.Uri): string[] {
  const value = vscode.workspace.getConfiguration(section, folder).get<Record<string, unknown>>('exclude') ?? {};
  return Object.entries(value)
    .filter(([, enabled]) => enabled === true)
    .map(([glob]) => glob);
}

/** Decides per file, with the rules of the workspace folder holding it, whether it is skipped. */
export class WorkspaceIgnores {
  private readonly rules = new Map<string, Promise<IgnoreRules>>();

  /** forSearch: search.exclude and .gitignore (when search.useIgnoreFiles is on) apply too, not just files.exclude. */
  constructor(private readonly forSearch: boolean) {}

  private rulesFor(folder: vscode.WorkspaceFolder): Promise<IgnoreRules> {
    const key = folder.uri.toString();
    let rules = this.rules.get(key);
    if (rules === undefined) {
      const excludes = enabledGlobs('files', folder.uri);
      if (!this.forSearch) rules = Promise.resolve(new IgnoreRules([], excludes));
      else {
        const useIgnoreFiles = vscode.workspace.getConfiguration('search', folder.uri).get<boolean>('useIgnoreFiles') ?? true;
        const all = [...excludes, ...enabledGlobs('search', folder.uri)];
        rules = useIgnoreFiles ? loadIgnoreRules(folder.uri.fsPath, all) : Promise.resolve(new IgnoreRules([], all));
      }
      this.rules.set(key, rules);
    }
    return rules;
  }

  async ignores(uri: vscode.Uri): Promise<boolean> {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder === undefined) return false;
    const relative = nodePath.relative(folder.uri.fsPath, uri.fsPath).split(nodePath.sep).join('/');
    return (await this.rulesFor(folder)).ignoresFile(relative);
  }
}
