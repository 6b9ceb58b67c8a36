// Shows a proposed file change in VS Code's diff editor and asks (in the chat, or Reject/Accept outside one); the diff tab closes afterwards.
import * as vscode from 'vscode';
import { diffLines, diffStats } from '../../shared/lineDiff';
import type { ProposedContent } from './proposedContent';

export interface FileChange {
  /** Absolute path of the file. */
  path: string;
  /** What it holds now ('' for a file that does not exist yet). */
  before: string;
  after: string;
  verb: 'create' | 'overwrite' | 'edit';
}

interface Choice extends vscode.QuickPickItem {
  accept: boolean;
}

function fileName(path: string): string {
  return path.split(/[\\/]/).pop() || 'file';
}

/** Asks about the change shown in the diff: relative path, verb, "+3 −1 lines"; true when allowed. */
export type AskAboutChange = (question: { relative: string; verb: FileChange['verb']; stats: string }, signal: AbortSignal | undefined) => Promise<boolean>;

/**
 * Outside a chat request (no inline confirmation to show): a quick pick rather than a notification, it stays open
 * while the person scrolls the diff (ignoreFocusOut). Reject comes first, so a stray Enter or Escape rejects, and a
 * cancelled request can take it away.
 */
export const askAcceptReject: AskAboutChange = ({ relative, verb, stats }, signal) => {
  const title = vscode.l10n.t('@agent wants to {0} {1}', verb, relative);
  return new Promise((resolve) => {
    // Cancelled while the diff was opening: an aborted signal never fires 'abort' again.
    if (signal?.aborted) {
      resolve(false);
      return;
    }
    const pick = vscode.window.createQuickPick<Choice>();
    pick.title = title;
    pick.placeholder = vscode.l10n.t('Review the change in the diff editor, then accept or reject it (Escape rejects)');
    pick.items = [
      { label: `$(close) ${vscode.l10n.t('Reject')}`, description: vscode.l10n.t('@agent is told you declined'), accept: false },
      { label: `$(check) ${vscode.l10n.t('Accept')}`, description: stats, accept: true },
    ];
    pick.ignoreFocusOut = true;
    let settled = false;
    const finish = (accepted: boolean): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      pick.dispose();
      resolve(accepted);
    };
    const onAbort = (): void => finish(false);
    pick.onDidAccept(() => finish(pick.selectedItems[0]?.accept === true));
    pick.onDidHide(() => finish(false));
    signal?.addEventListener('abort', onAbort, { once: true });
    pick.show();
  });
};

async function closeDiff(proposed: vscode.Uri): Promise<void> {
  const target = proposed.toString();
  const tabs = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === target);
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}

/** Resolves true when the person allowed the change; false when they rejected or skipped it or the request was cancelled. */
export async function reviewInDiff(change: FileChange, documents: ProposedContent, ask: AskAboutChange, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const relative = vscode.workspace.asRelativePath(change.path);
  const pair = documents.hold(fileName(change.path), change.before, change.after);
  const { added, removed } = diffStats(diffLines(change.before, change.after));
  const stats = change.verb === 'create' ? `new file, ${added} lines` : `+${added} −${removed} lines`;
  try {
    const side = change.verb === 'create' ? 'new file' : 'current ↔ proposed';
    await vscode.commands.executeCommand('vscode.diff', pair.current, pair.proposed, `${relative} (${side}, @agent)`, { preview: true });
    return await ask({ relative, verb: change.verb, stats }, signal);
  } finally {
    await closeDiff(pair.proposed).catch(() => undefined);
    pair.dispose();
  }
}
