// A deleted session's files go to the trash, or where there is none into `sessions/deleted/`: a deletion the person can still undo.
import * as path from 'node:path';
import * as vscode from 'vscode';

/** Moves a session's log and its quarantine file (those that exist) out of the sessions folder, recoverably. */
export async function trashSessionFiles(sessionsDir: string, logFile: string): Promise<void> {
  for (const file of [path.basename(logFile), path.basename(logFile).replace(/\.jsonl$/, '.quarantine.jsonl')]) {
    const uri = vscode.Uri.file(path.join(sessionsDir, file));
    try {
      await vscode.workspace.fs.stat(uri);
    } catch {
      continue;
    }
    try {
      await vscode.workspace.fs.delete(uri, { useTrash: true });
    } catch {
      const deleted = vscode.Uri.file(path.join(sessionsDir, 'deleted'));
      await vscode.workspace.fs.createDirectory(deleted);
      await vscode.workspace.fs.rename(uri, vscode.Uri.joinPath(deleted, file), { overwrite: true });
    }
  }
}
