// Restore Checkpoint as the person sees it: the pickers, the questions and the sentences; the core's flow plans and restores.
import * as vscode from 'vscode';
import type { Checkpoint, RestoreItem, RestorePort } from '../../core/checkpoints/fileCheckpoints';
import { changedSince, checkpoints, unrecordedSentence } from '../../core/checkpoints/fileCheckpoints';
import { planCheckpointRestore, planCompactionRestore, restoreBeforeCompaction, restoreCheckpoint as restoreCheckpointFlow, type CheckpointMode, type CompactionRestored, type FileAccess, type FilesRestored, type RestoreOptions } from '../../core/agent/sessionFlows';
import type { ConfirmStop } from '../../core/agent/sessionEngine';
import { isNotFound } from '../../core/checkpoints/changeRecorder';
import { readExact, readTextInside, removeExact, writeExact } from '../../core/checkpoints/exactFiles';
import { blobRefOf } from '../../core/storage/blobStore';
import { resolveLexically, resolveSafely } from '../../core/tools/pathSafety';
import { verifyWriteTarget } from '../../core/tools/safeFileIo';
import type { AgentSession } from './agentSession';
import { fileRoots } from '../tools/workspaceAccess';
import { formatWhen } from '../../shared/budgetFormat';
import { confirmStopRequest } from './stopRequestConfirmation';
import { boundedPick } from '../boundedPick';

export type RestoreMode = CheckpointMode;

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

/**
 * The path of an exact-bytes item: its raw bytes, else the lexically checked path. Every read and write of it then
 * goes through folders opened without following links (exactFiles.ts), so a folder swapped for a link mid-restore
 * gets nothing written and gives nothing to read.
 */
function exactPath(absolute: string, raw: Buffer | undefined): string | Buffer {
  const path = raw ?? resolveLexically(absolute, fileRoots()).absolute;
  // Bytes on disk are not what an editor with unsaved changes shows: that file is the person's, left alone.
  if (typeof path === 'string' && openDocument(vscode.Uri.file(path))?.isDirty) throw new Error(vscode.l10n.t('it has unsaved changes in the editor'));
  return path;
}

/**
 * Text a file tool wrote is read as the person sees it (unsaved editors included, else from disk, checked after it
 * is opened to be inside the workspace) and written through undoable WorkspaceEdits; a command's snapshot is exact
 * bytes and mode, read and written as they are on disk (any encoding, any line ending, any name), and an editor
 * showing the file reloads it.
 */
export const workspaceRestorePort: RestorePort = {
  readBytes(absolute, raw) {
    return readExact(exactPath(absolute, raw), fileRoots());
  },
  async writeBytes(absolute, data, raw, mode) {
    await writeExact(exactPath(absolute, raw), data, fileRoots(), mode);
  },
  async read(absolute) {
    const uri = await safeUri(absolute);
    const open = openDocument(uri);
    if (open) return open.getText();
    return readTextInside(uri.fsPath, fileRoots());
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
      await removeExact(exactPath(absolute, raw), fileRoots());
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

/** How the workspace's files are read and written for a restore, and where they may be. */
export function workspaceFiles(): FileAccess {
  return { port: workspaceRestorePort, roots: fileRoots() };
}

/** What the restore of the core's flows needs from VS Code: the files, and the two questions it may ask. */
export function restoreOptions(confirmStop: ConfirmStop = confirmStopRequest): RestoreOptions {
  return { files: workspaceFiles(), confirmStop, confirmAdded: mayRestoreFiles };
}

/** What a file restore did, in one or two sentences for the person. */
export function filesRestoredSentence(files: FilesRestored, what: string): string {
  const restored = files.changes.map((change) => change.path);
  const done = restored.length > 0 ? vscode.l10n.t('Restored {0} to {1}: {2}.', fileCount(restored.length), what, fileList(restored)) : vscode.l10n.t('No file needed restoring to {0}.', what);
  const failed = files.failed.map((failure) => ` ${vscode.l10n.t('{0} was not restored: {1}.', failure.path, failure.reason)}`).join('');
  const kept = files.kept.length > 0 ? ` ${vscode.l10n.t('Left as they are (changed after the agent last wrote them): {0}.', fileList(files.kept))}` : '';
  const declined = files.declined.length > 0 ? ` ${vscode.l10n.t('Kept as you changed them: {0}.', fileList(files.declined))}` : '';
  return done + failed + kept + declined;
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

/** The modes the core's plan offers, in words. */
function modeItems(point: Checkpoint, items: readonly RestoreItem[], offered: readonly RestoreMode[]): Array<vscode.QuickPickItem & { mode: RestoreMode }> {
  const files = `${fileCount(items.length)}: ${fileList(items.map((item) => item.path))}${unrecordedNote(point)}`;
  const words: Record<RestoreMode, vscode.QuickPickItem> = {
    both: { label: `$(history) ${vscode.l10n.t('Files and conversation')}`, detail: vscode.l10n.t('Back to before this request; {0}', files) },
    files: { label: `$(files) ${vscode.l10n.t('Files only')}`, detail: vscode.l10n.t('{0}; the conversation goes on as it is', files) },
    conversation: { label: `$(comment-discussion) ${vscode.l10n.t('Conversation only')}`, detail: vscode.l10n.t('Continue from before this request; the files stay as they are and later turns stay on their branch') },
  };
  return offered.map((mode) => ({ mode, ...words[mode] }));
}

function isRestoreMode(value: unknown): value is RestoreMode {
  return value === 'both' || value === 'files' || value === 'conversation';
}

/**
 * The palette and panel command: pick a checkpoint (unless given), pick what to restore (unless `preset` names an
 * offered mode: for scripts and other extensions), then the core restores it with the session held, planning again
 * on what is current once a running request has stopped. `confirmStop` asks before stopping one.
 */
export async function restoreCheckpoint(session: AgentSession, entryId?: string, preset?: unknown, confirmStop: ConfirmStop = confirmStopRequest): Promise<string | undefined> {
  if (session.log.readOnly) throw new Error(vscode.l10n.t('This session is open in another window; restore it there.'));
  const points = checkpoints(session.log.path());
  if (points.length === 0) return vscode.l10n.t('No checkpoint yet: every request to @agent makes one.');
  let point = points.find((candidate) => candidate.entryId === entryId);
  if (!point) {
    const pick = boundedPick(points, vscode.l10n.t('Restore Checkpoint'));
    const picked = await vscode.window.showQuickPick(pick.items.map(pointItem), { title: pick.title, placeHolder: vscode.l10n.t('Restore to before which request? (nothing is lost: the current state stays in the session)'), matchOnDetail: true });
    point = picked?.point;
  }
  if (!point) return undefined;
  const plan = planCheckpointRestore(session.log, point.entryId);
  if (!plan) return undefined;
  const modes = modeItems(plan.point, plan.items, plan.modes);
  if (modes.length === 0) return vscode.l10n.t('Nothing to restore there: no recorded file change since, and the conversation cannot go back before its first request.') + unrecordedNote(plan.point).replace(' · c', ' C');
  const offered = isRestoreMode(preset) ? modes.find((item) => item.mode === preset) : undefined;
  const mode = offered?.mode ?? (await vscode.window.showQuickPick(modes, { title: vscode.l10n.t('Restore to before: {0}', plan.point.title), placeHolder: vscode.l10n.t('What should go back?') }))?.mode;
  if (!mode) return undefined;
  const what = plan.point.kind === 'request' ? vscode.l10n.t('before "{0}"', plan.point.title.replace(/^You: /, '')) : vscode.l10n.t('before that restore');
  if (mode !== 'conversation' && !(await mayRestoreFiles(plan.items))) return undefined;
  const done = await restoreCheckpointFlow(session, plan, mode, restoreOptions(confirmStop));
  if (!done) return undefined;
  const parts: string[] = [];
  if (done.files) parts.push(filesRestoredSentence(done.files, what));
  if (done.conversation) parts.push(vscode.l10n.t('The conversation continues from before that request; the later turns stay on their own branch (Switch Branch returns to them).'));
  const message = parts.join(' ');
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

/** What undoing a compaction did, in words: the history back, and the later turns with it or left on their branch. */
function compactionRestoredSentence(done: CompactionRestored): string {
  if (done.mode === 'files') {
    return vscode.l10n.t(
      'Restored the session to the point of that compaction, full history and no summary. {0} The later turns stay on the compacted branch (Switch Branch returns to them); nothing will be compacted again without asking until you compact or choose Resume Automatic Compaction.',
      filesRestoredSentence(done.files, vscode.l10n.t('how they were at that compaction')),
    );
  }
  const { copied, skippedCompactions } = done;
  const restored =
    copied === 0
      ? vscode.l10n.t('Restored the full history from before that compaction.')
      : copied === 1
        ? vscode.l10n.t('Restored the full history from before that compaction with the 1 entry made since.')
        : vscode.l10n.t('Restored the full history from before that compaction with the {0} entries made since.', copied);
  const skipped =
    skippedCompactions === 0
      ? ''
      : ` ${skippedCompactions === 1 ? vscode.l10n.t('The 1 later compaction built on it is undone too.') : vscode.l10n.t('The {0} later compactions built on it are undone too.', skippedCompactions)}`;
  return `${restored}${skipped} ${vscode.l10n.t('Nothing will be compacted again without asking until you compact or choose Resume Automatic Compaction; the compacted branch is kept (Switch Branch returns to it).')}`;
}

/**
 * Restore Pre-Compaction Branch: when the agent changed files since, the person chooses the conversation only (every
 * later turn comes back) or the conversation and the files as they were at that point (later turns stay on the
 * compacted branch); the core's flow does it with the session held. Returns what happened (or why nothing did).
 */
export async function restorePreCompaction(session: AgentSession, compactionId: string, whileApplying?: <T>(work: () => Promise<T>) => Promise<T>, confirmStop: ConfirmStop = confirmStopRequest): Promise<string> {
  const plan = planCompactionRestore(session.log, compactionId);
  if (plan.handoffFrom) {
    return vscode.l10n.t('This summary is where the session began: a hand-off from "{0}", which holds the full history and stays whole in Sessions. Nothing was restored.', plan.handoffFrom.title);
  }
  const cancelled = vscode.l10n.t('Restore cancelled; nothing changed.');
  const mode = plan.items.length === 0 ? 'conversation' : await askCompactionRestoreMode(plan.items.map((item) => item.path));
  if (!mode) return cancelled;
  if (mode === 'files' && !(await mayRestoreFiles(plan.items))) return cancelled;
  const done = await restoreBeforeCompaction(session, plan, mode, { ...restoreOptions(confirmStop), ...(whileApplying ? { whileApplying } : {}) });
  if (!done) return cancelled;
  const message = compactionRestoredSentence(done);
  session.noteForChat(message);
  return message;
}
