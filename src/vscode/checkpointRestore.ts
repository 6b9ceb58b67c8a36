// Restore Checkpoint: puts the files, the conversation or both back to before any request (palette, panel, pre-compaction restore).
import * as vscode from 'vscode';
import type { Checkpoint, RestoreItem, RestorePort } from '../core/checkpoints/fileCheckpoints';
import { applyFileRestore, changedSince, checkpoints, planFileRestore, unrecordedSentence } from '../core/checkpoints/fileCheckpoints';
import { isNotFound } from '../core/checkpoints/changeRecorder';
import { assertWritableInside, readExact, removeExact, writeExact } from '../core/checkpoints/exactFiles';
import { blobRefOf } from '../core/storage/blobStore';
import { resolveSafely } from '../core/tools/pathSafety';
import { readRegularText, verifyWriteTarget } from '../core/tools/safeFileIo';
import type { AgentSession } from './agentSession';
import { fileRoots } from './workspaceAccess';
import { formatWhen } from '../shared/budgetFormat';

export type RestoreMode = 'both' | 'files' | 'conversation';

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
}

/** Each path is checked again against the workspace folders (symbolic links followed) before it is touched. */
async function safeUri(absolute: string): Promise<vscode.Uri> {
  const safe = await resolveSafely(absolute, fileRoots());
  await verifyWriteTarget(safe.real, fileRoots(), absolute).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
  return vscode.Uri.file(safe.absolute);
}

async function apply(edit: vscode.WorkspaceEdit, uri: vscode.Uri): Promise<void> {
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('VS Code could not apply the change');
  const document = openDocument(uri);
  if (document?.isDirty) await document.save();
}

/** The path of an exact-bytes item: its raw bytes (checked to stay inside the folders through links), else the checked string path. */
async function exactPath(absolute: string, raw: Buffer | undefined): Promise<string | Buffer> {
  const path = raw ?? (await safeUri(absolute)).fsPath;
  await assertWritableInside(path, fileRoots());
  // Bytes on disk are not what an editor with unsaved changes shows: that file is the person's, left alone.
  if (typeof path === 'string' && openDocument(vscode.Uri.file(path))?.isDirty) throw new Error(vscode.l10n.t('it has unsaved changes in the editor'));
  return path;
}

/**
 * Text a file tool wrote is read as the person sees it (unsaved editors included) and written through undoable
 * WorkspaceEdits; a command's snapshot is exact bytes, read and written as they are on disk (any encoding, any line
 * ending, any name), and an editor showing the file reloads it.
 */
export const workspaceRestorePort: RestorePort = {
  async readBytes(absolute, raw) {
    return readExact(await exactPath(absolute, raw));
  },
  async writeBytes(absolute, data, raw) {
    await writeExact(await exactPath(absolute, raw), data);
  },
  async read(absolute) {
    const uri = await safeUri(absolute);
    const open = openDocument(uri);
    if (open) return open.getText();
    try {
      return await readRegularText(uri.fsPath, absolute);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  },
  async write(absolute, text) {
    const uri = await safeUri(absolute);
    const edit = new vscode.WorkspaceEdit();
    const exists = openDocument(uri) !== undefined || (await vscode.workspace.fs.stat(uri).then(() => true, () => false));
    if (exists) {
      const document = await vscode.workspace.openTextDocument(uri);
      edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
    } else edit.createFile(uri, { contents: new TextEncoder().encode(text) });
    await apply(edit, uri);
  },
  async remove(absolute, raw) {
    if (raw) {
      await removeExact(await exactPath(absolute, raw));
      return;
    }
    const uri = await safeUri(absolute);
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(uri, { ignoreIfNotExists: true });
    await apply(edit, uri);
  },
};

function fileList(paths: readonly string[], limit = 5): string {
  const shown = paths.slice(0, limit).join(', ');
  return paths.length > limit ? vscode.l10n.t('{0} and {1} more', shown, paths.length - limit) : shown;
}

function fileCount(count: number): string {
  return count === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', count);
}

/**
 * Files someone changed after the agent last wrote them are left as they are unless the person says otherwise:
 * asks which, and marks the items to replace; false when the person cancelled.
 */
async function confirmOverwrite(items: readonly RestoreItem[]): Promise<boolean> {
  const changed = new Set(await changedSince(items, workspaceRestorePort, blobRefOf, fileRoots()));
  if (changed.size === 0) return true;
  const names = [...changed];
  const leave = vscode.l10n.t('Leave Them, Restore the Rest');
  const replace = vscode.l10n.t('Replace Them Too');
  const choice = await vscode.window.showWarningMessage(
    changed.size === 1
      ? vscode.l10n.t('1 file changed after the agent last wrote it: {0}.', fileList(names))
      : vscode.l10n.t('{0} files changed after the agent last wrote them: {1}.', changed.size, fileList(names)),
    { modal: true, detail: vscode.l10n.t('Those changes are not the agent\'s: the restore leaves those files as they are unless you replace them too (their current content is then kept in the session, and Restore Checkpoint… can undo the restore).') },
    leave,
    replace,
  );
  if (choice === undefined) return false;
  for (const item of items) if (changed.has(item.path)) item.replaceChanged = choice === replace;
  return true;
}

/** Checks trust and asks about files changed since the agent wrote them; false when the person cancelled. */
export async function mayRestoreFiles(items: readonly RestoreItem[]): Promise<boolean> {
  if (items.length === 0) return true;
  if (!vscode.workspace.isTrusted) throw new Error(vscode.l10n.t('Files cannot be restored in Restricted Mode: trust the workspace first.'));
  return confirmOverwrite(items);
}

/**
 * Restores the files (after mayRestoreFiles) to before `entryId` (a request, a compaction or an earlier restore)
 * and records it as a fileRestore entry on the current branch. Returns one sentence for the person.
 */
export async function restoreFiles(session: AgentSession, entryId: string, items: readonly RestoreItem[], what: string): Promise<string> {
  if (items.length === 0) return vscode.l10n.t('No file needed restoring to {0}.', what);
  const outcome = await applyFileRestore(items, workspaceRestorePort, session.log.blobs, fileRoots());
  if (outcome.changes.length > 0) await session.log.append({ type: 'fileRestore', targetId: entryId, changes: outcome.changes });
  const restored = outcome.changes.map((change) => change.path);
  const done = restored.length > 0 ? vscode.l10n.t('Restored {0} to {1}: {2}.', fileCount(restored.length), what, fileList(restored)) : vscode.l10n.t('No file needed restoring to {0}.', what);
  const failed = outcome.failed.map((failure) => ` ${vscode.l10n.t('{0} was not restored: {1}.', failure.path, failure.reason)}`).join('');
  const kept = outcome.kept.length > 0 ? ` ${vscode.l10n.t('Left as they are (changed after the agent last wrote them): {0}.', fileList(outcome.kept))}` : '';
  return done + failed + kept;
}

/** What the picker says about changes a restore cannot put back (commands run where no snapshot could be taken). */
function unrecordedNote(point: Checkpoint): string {
  const sentence = unrecordedSentence(point);
  return sentence ? ` · ${sentence}` : '';
}

function pointItem(point: Checkpoint): vscode.QuickPickItem & { point: Checkpoint } {
  const files = (point.fileCount > 0 ? vscode.l10n.t('{0} changed since: {1}', fileCount(point.fileCount), fileList(point.files)) : vscode.l10n.t('no file changed since')) + unrecordedNote(point);
  return { label: `${point.kind === 'restore' ? '$(discard)' : '$(comment)'} ${point.title}`, description: formatWhen(point.when, vscode.env.language), detail: files, point };
}

function modeItems(point: Checkpoint, items: readonly RestoreItem[]): Array<vscode.QuickPickItem & { mode: RestoreMode }> {
  const modes: Array<vscode.QuickPickItem & { mode: RestoreMode }> = [];
  const conversation = point.kind === 'request' && point.conversation;
  const files = `${fileCount(items.length)}: ${fileList(items.map((item) => item.path))}${unrecordedNote(point)}`;
  if (conversation && items.length > 0) modes.push({ mode: 'both', label: `$(history) ${vscode.l10n.t('Files and conversation')}`, detail: vscode.l10n.t('Back to before this request; {0}', files) });
  if (items.length > 0) modes.push({ mode: 'files', label: `$(files) ${vscode.l10n.t('Files only')}`, detail: vscode.l10n.t('{0}; the conversation goes on as it is', files) });
  if (conversation) modes.push({ mode: 'conversation', label: `$(comment-discussion) ${vscode.l10n.t('Conversation only')}`, detail: vscode.l10n.t('Continue from before this request; the files stay as they are and later turns stay on their branch') });
  return modes;
}

/** Moves the session back to before the request (a new branch from there; later turns stay in the tree). */
async function restoreConversation(session: AgentSession, point: Checkpoint): Promise<void> {
  const parent = session.log.tree.parentOfNode(point.entryId);
  if (!parent) throw new Error(vscode.l10n.t('That is the first request of the session: start a new chat (@agent /new) instead.'));
  await session.log.moveLeaf(parent.id, 'switch');
}

function isRestoreMode(value: unknown): value is RestoreMode {
  return value === 'both' || value === 'files' || value === 'conversation';
}

/**
 * The palette and panel command: pick a checkpoint (unless given), pick what to restore (unless `preset`
 * names an offered mode: for scripts and other extensions), restore it.
 */
/** Runs the restore itself as one exclusive change of the session (see SessionEngine.exclusive); undefined when it did not run. */
export type RunExclusive = (what: string, work: () => Promise<string>) => Promise<string | undefined>;

export async function restoreCheckpoint(session: AgentSession, entryId?: string, preset?: unknown, exclusive: RunExclusive = (_what, work) => work()): Promise<string | undefined> {
  if (session.log.readOnly) throw new Error(vscode.l10n.t('This session is open in another window; restore it there.'));
  const points = checkpoints(session.log.path());
  if (points.length === 0) return vscode.l10n.t('No checkpoint yet: every request to @agent makes one.');
  let point = points.find((candidate) => candidate.entryId === entryId);
  if (!point) {
    const picked = await vscode.window.showQuickPick(points.map(pointItem), { title: vscode.l10n.t('Restore Checkpoint'), placeHolder: vscode.l10n.t('Restore to before which request? (nothing is lost: the current state stays in the session)'), matchOnDetail: true });
    point = picked?.point;
  }
  if (!point) return undefined;
  const items = planFileRestore(session.log.path(), point.entryId, session.log.tree.entries) ?? [];
  const modes = modeItems(point, items);
  if (modes.length === 0) return vscode.l10n.t('Nothing to restore there: no recorded file change since, and the conversation cannot go back before its first request.') + unrecordedNote(point).replace(' · c', ' C');
  const offered = isRestoreMode(preset) ? modes.find((item) => item.mode === preset) : undefined;
  const mode = offered?.mode ?? (await vscode.window.showQuickPick(modes, { title: vscode.l10n.t('Restore to before: {0}', point.title), placeHolder: vscode.l10n.t('What should go back?') }))?.mode;
  if (!mode) return undefined;
  const what = point.kind === 'request' ? vscode.l10n.t('before "{0}"', point.title.replace(/^You: /, '')) : vscode.l10n.t('before that restore');
  const withFiles = mode !== 'conversation';
  if (withFiles && !(await mayRestoreFiles(items))) return undefined;
  const message = await exclusive('restoring a checkpoint', async () => {
    const parts: string[] = [];
    // The conversation moves first, so the file restore is recorded on the branch that continues.
    if (mode !== 'files') await restoreConversation(session, point);
    if (withFiles) parts.push(await restoreFiles(session, point.entryId, items, what));
    if (mode !== 'files') parts.push(vscode.l10n.t('The conversation continues from before that request; the later turns stay on their own branch (Switch Branch returns to them).'));
    return parts.join(' ');
  });
  if (message === undefined) return undefined;
  session.noteForChat(message);
  return message;
}

/** When the agent changed files after a compaction: restore the conversation only, or the files with it. */
export async function askCompactionRestoreMode(files: readonly string[]): Promise<'conversation' | 'files' | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      { mode: 'conversation' as const, label: `$(comment-discussion) ${vscode.l10n.t('Conversation only')}`, detail: vscode.l10n.t('Every turn made since comes back verbatim; the files stay as they are') },
      { mode: 'files' as const, label: `$(history) ${vscode.l10n.t('Conversation and files, back to that point')}`, detail: vscode.l10n.t('Full history up to the compaction; {0} the agent changed since go back: {1}', fileCount(files.length), fileList(files)) },
    ],
    { title: vscode.l10n.t('Restore Pre-Compaction Branch'), placeHolder: vscode.l10n.t('The agent changed {0} after this compaction. What should go back?', fileCount(files.length)) },
  );
  return picked?.mode;
}
