// Where a workspace's sessions live: one folder per workspace in the extension's global storage, shared by every window
// open on it, and this window's own note of the session its chat continues.
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { migrateSessions } from '../../core/session/sessionsMigration';
import { nodeFileIo } from '../../core/storage/fileIo';
import type { Logger } from '../logger';

export interface SessionStorage {
  /** The folder whose `sessions/` holds the workspace's sessions, the same for every window on the workspace. */
  root: string;
  /** Earlier homes of this workspace's sessions (per-window storage folders), migrated into `root` at start. */
  legacyRoots: string[];
  /** This window's own file (in its workspace storage): the session its chat continues, for the next reload. */
  windowFile: string | undefined;
  /** What names the workspace (a folder's or a .code-workspace file's URI), written beside the sessions for people. */
  identity: string | undefined;
}

/**
 * The URI that names the workspace: a saved .code-workspace file, else the one folder open. An untitled multi-root
 * workspace has no lasting name; without a folder there is no workspace.
 */
export function workspaceIdentity(workspace: Pick<typeof vscode.workspace, 'workspaceFile' | 'workspaceFolders'>): string | undefined {
  const file = workspace.workspaceFile;
  if (file) return file.scheme === 'untitled' ? undefined : file.toString();
  const folders = workspace.workspaceFolders ?? [];
  return folders.length === 1 ? folders[0]?.uri.toString() : undefined;
}

/**
 * VS Code gives each extension host its own workspace storage folder and, when a second window opens the same folder,
 * a second one (`<id>-1`, up to `<id>-9`: its folder lock is taken). Sessions kept there split between windows and
 * follow whichever window gets the first folder after a restart. So they live in the global storage under a hash of
 * the workspace's URI; the per-window folders (this one and its numbered siblings) are where they lived before.
 */
export function sessionStorage(context: Pick<vscode.ExtensionContext, 'storageUri' | 'globalStorageUri'>, identity: string | undefined): SessionStorage {
  const windowStorage = context.storageUri?.fsPath;
  if (!windowStorage || identity === undefined) {
    return { root: windowStorage ?? context.globalStorageUri.fsPath, legacyRoots: [], windowFile: windowStorage ? path.join(windowStorage, 'window.json') : undefined, identity };
  }
  const key = createHash('sha256').update(identity).digest('hex').slice(0, 24);
  return {
    root: path.join(context.globalStorageUri.fsPath, 'workspaces', key),
    legacyRoots: windowStorageSiblings(windowStorage),
    windowFile: path.join(windowStorage, 'window.json'),
    identity,
  };
}

/** `<workspaceStorage>/<id>[-N]/<extension>` → the same extension folder under `<id>` and `<id>-1` … `<id>-9`. */
export function windowStorageSiblings(windowStorage: string): string[] {
  const extension = path.basename(windowStorage);
  const workspaceFolder = path.dirname(windowStorage);
  const storageHome = path.dirname(workspaceFolder);
  const base = path.basename(workspaceFolder).replace(/-[1-9]$/, '');
  return [base, ...Array.from({ length: 9 }, (_, index) => `${base}-${index + 1}`)].map((name) => path.join(storageHome, name, extension));
}

/**
 * Moves the sessions kept in per-window storage folders into `sessionsDir` (the shared one) before the store's first
 * use; a log another window still writes moves at a later start. A failure leaves the old files as they are.
 */
export async function moveEarlierSessions(storage: SessionStorage, sessionsDir: string, logger: Logger): Promise<void> {
  if (storage.identity !== undefined) {
    // For a person looking at the global storage: whose sessions these are.
    await nodeFileIo.mkdirp(storage.root);
    await nodeFileIo.writeFileAtomic(path.join(storage.root, 'workspace.json'), `${JSON.stringify({ workspace: storage.identity }, null, 2)}\n`).catch(() => undefined);
  }
  for (const earlier of storage.legacyRoots) {
    const from = path.join(earlier, 'sessions');
    try {
      const result = await migrateSessions(nodeFileIo, from, sessionsDir);
      if (result.moved > 0 || result.waiting > 0) logger.info(`sessions moved from ${from} to ${sessionsDir}: ${result.moved} (${result.renamed} renamed), ${result.waiting} left for later (open in another window)`);
    } catch (error) {
      logger.warn(`sessions in ${from} could not be moved to ${sessionsDir} (they stay there, untouched): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
