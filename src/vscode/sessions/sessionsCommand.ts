// "Compaction Agent: Sessions…": the workspace's sessions, each to open, rename, export (Markdown or JSONL) or delete.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionRecord } from '../../core/session/sessionIndex';
import { sessionMarkdown } from '../../core/session/sessionMarkdown';
import type { AgentSessions } from './agentSessions';
import { formatWhen } from '../../shared/budgetFormat';
import { boundedPick } from '../boundedPick';

type Action = 'open' | 'rename' | 'markdown' | 'jsonl' | 'delete';

function actions(): ReadonlyArray<vscode.QuickPickItem & { action: Action }> {
  return [
    { label: `$(go-to-file) ${vscode.l10n.t('Open')}`, description: vscode.l10n.t('make it the session the status bar and panel follow'), action: 'open' },
    { label: `$(edit) ${vscode.l10n.t('Rename…')}`, action: 'rename' },
    { label: `$(markdown) ${vscode.l10n.t('Export as Markdown…')}`, description: vscode.l10n.t('every request, answer, tool call and result on its current branch'), action: 'markdown' },
    { label: `$(json) ${vscode.l10n.t('Export as JSONL…')}`, description: vscode.l10n.t('the whole log with every branch, as stored'), action: 'jsonl' },
    { label: `$(trash) ${vscode.l10n.t('Delete…')}`, action: 'delete' },
  ];
}

function safeName(title: string): string {
  return title.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'session';
}

async function pickSession(sessions: AgentSessions): Promise<SessionRecord | undefined> {
  const records = await sessions.store.list();
  if (records.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Compaction Agent: no sessions in this workspace yet. Ask @agent something to start one.'));
    return undefined;
  }
  const activeId = sessions.active?.id;
  const byId = new Map(records.map((record) => [record.id, record] as const));
  // A hand-off names the session it came from, a sub-task the session that started it; both stay in the list, whole.
  // Titles can repeat, so a hand-off's source is also named by when it started.
  const origin = (record: SessionRecord): string | undefined => {
    const parts: string[] = [];
    if (record.parentId) {
      const parent = byId.get(record.parentId);
      parts.push(parent ? vscode.l10n.t('sub-task of “{0}”', parent.title) : vscode.l10n.t('sub-task of a deleted session'));
    }
    if (record.handoffFrom) {
      const source = byId.get(record.handoffFrom);
      parts.push(source ? vscode.l10n.t('hand-off from “{0}” (started {1})', source.title, formatWhen(source.createdAt, vscode.env.language)) : vscode.l10n.t('hand-off from a deleted session'));
    }
    return parts.length > 0 ? parts.join(' · ') : undefined;
  };
  const pick = boundedPick(records, vscode.l10n.t('Compaction Agent: Sessions'));
  const picked = await vscode.window.showQuickPick(
    pick.items.map((record) => {
      const from = origin(record);
      return {
        label: `${record.id === activeId ? '$(circle-filled) ' : ''}${record.parentId ? '$(type-hierarchy-sub) ' : ''}${record.title}`,
        description: formatWhen(record.updatedAt, vscode.env.language),
        // On a line of its own, so a long source title never pushes its start time out of sight.
        ...(from ? { detail: from } : {}),
        record,
      };
    }),
    { title: pick.title, placeHolder: vscode.l10n.t('Pick a session (newest first)'), matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.record;
}

async function saveTarget(record: SessionRecord, extension: string): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `${safeName(record.title)}.${extension}`;
  return vscode.window.showSaveDialog({ title: vscode.l10n.t('Export "{0}"', record.title), ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}), filters: { [extension.toUpperCase()]: [extension] } });
}

/** Runs the picked action; `showPanel` opens the Context & Compaction panel after Open. */
export async function manageSessions(sessions: AgentSessions, showPanel: () => void): Promise<void> {
  const record = await pickSession(sessions);
  if (!record) return;
  const choice = await vscode.window.showQuickPick(actions(), { title: record.title, placeHolder: vscode.l10n.t('What to do with this session') });
  if (!choice) return;
  switch (choice.action) {
    case 'open': {
      const session = await sessions.open(record.id);
      if (!session) throw new Error(`session "${record.title}" could not be opened`);
      sessions.activate(session);
      showPanel();
      return;
    }
    case 'rename': {
      const title = await vscode.window.showInputBox({ title: vscode.l10n.t('Rename session'), value: record.title, validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('A name cannot be empty')) });
      if (title?.trim()) await sessions.rename(record.id, title.trim());
      return;
    }
    case 'markdown': {
      const target = await saveTarget(record, 'md');
      if (!target) return;
      const session = await sessions.open(record.id);
      if (!session) throw new Error(`session "${record.title}" could not be opened`);
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(sessionMarkdown(record.title, session.log.path())));
      void vscode.window.showInformationMessage(vscode.l10n.t('Exported "{0}" to {1}.', record.title, path.basename(target.fsPath)));
      return;
    }
    case 'jsonl': {
      const target = await saveTarget(record, 'jsonl');
      if (!target) return;
      await vscode.workspace.fs.copy(vscode.Uri.file(sessions.store.filePath(record)), target, { overwrite: true });
      void vscode.window.showInformationMessage(vscode.l10n.t('Exported "{0}" to {1}.', record.title, path.basename(target.fsPath)));
      return;
    }
    case 'delete': {
      const remove = vscode.l10n.t('Delete');
      const confirm = await vscode.window.showWarningMessage(
        vscode.l10n.t('Delete the session "{0}"? Its log moves to the trash where the system has one, else to a "deleted" folder beside the sessions.', record.title),
        { modal: true },
        remove,
      );
      if (confirm !== remove) return;
      await sessions.remove(record.id);
      const freed = sessions.store.lastCollection;
      const note = freed && freed.removed > 0 ? ` ${vscode.l10n.t('Freed {0} MB of file snapshots, images and long outputs no other session uses.', (freed.bytesFreed / 1024 / 1024).toFixed(1))}` : '';
      void vscode.window.showInformationMessage(`${vscode.l10n.t('Deleted the session "{0}".', record.title)}${note}`);
      return;
    }
  }
}
