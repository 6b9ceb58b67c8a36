// "Compaction Agent: Sessions…": the workspace's sessions, each to open, rename, export (Markdown or JSONL) or delete.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/session/sessionIndex';
import { sessionMarkdown } from '../core/session/sessionMarkdown';
import type { AgentSessions } from './agentSessions';
import { formatWhen } from '../shared/budgetFormat';

type Action = 'open' | 'rename' | 'markdown' | 'jsonl' | 'delete';

const ACTIONS: ReadonlyArray<vscode.QuickPickItem & { action: Action }> = [
  { label: '$(go-to-file) Open', description: 'make it the session the status bar and panel follow', action: 'open' },
  { label: '$(edit) Rename…', action: 'rename' },
  { label: '$(markdown) Export as Markdown…', description: 'every request, answer, tool call and result on its current branch', action: 'markdown' },
  { label: '$(json) Export as JSONL…', description: 'the whole log with every branch, as stored', action: 'jsonl' },
  { label: '$(trash) Delete…', action: 'delete' },
];

function safeName(title: string): string {
  return title.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'session';
}

async function pickSession(sessions: AgentSessions): Promise<SessionRecord | undefined> {
  const records = await sessions.store.list();
  if (records.length === 0) {
    void vscode.window.showInformationMessage('Compaction Agent: no sessions in this workspace yet. Ask @agent something to start one.');
    return undefined;
  }
  const activeId = sessions.active?.id;
  const titles = new Map(records.map((record) => [record.id, record.title] as const));
  // A hand-off names the session it came from; that one stays in the list, whole.
  const origin = (record: SessionRecord): string => {
    if (!record.handoffFrom) return '';
    const source = titles.get(record.handoffFrom);
    return source ? ` · hand-off from “${source}”` : ' · hand-off from a deleted session';
  };
  const picked = await vscode.window.showQuickPick(
    records.map((record) => ({
      label: `${record.id === activeId ? '$(circle-filled) ' : ''}${record.title}`,
      description: `${formatWhen(record.updatedAt, vscode.env.language)}${origin(record)}`,
      record,
    })),
    { title: 'Compaction Agent: Sessions', placeHolder: 'Pick a session (newest first)', matchOnDescription: true },
  );
  return picked?.record;
}

async function saveTarget(record: SessionRecord, extension: string): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `${safeName(record.title)}.${extension}`;
  return vscode.window.showSaveDialog({ title: `Export "${record.title}"`, ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}), filters: { [extension.toUpperCase()]: [extension] } });
}

/** Runs the picked action; `showPanel` opens the Context & Compaction panel after Open. */
export async function manageSessions(sessions: AgentSessions, showPanel: () => void): Promise<void> {
  const record = await pickSession(sessions);
  if (!record) return;
  const choice = await vscode.window.showQuickPick(ACTIONS, { title: record.title, placeHolder: 'What to do with this session' });
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
      const title = await vscode.window.showInputBox({ title: 'Rename session', value: record.title, validateInput: (value) => (value.trim() ? undefined : 'A name cannot be empty') });
      if (title?.trim()) await sessions.store.touch(record.id, title.trim());
      return;
    }
    case 'markdown': {
      const target = await saveTarget(record, 'md');
      if (!target) return;
      const session = await sessions.open(record.id);
      if (!session) throw new Error(`session "${record.title}" could not be opened`);
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(sessionMarkdown(record.title, session.log.path())));
      void vscode.window.showInformationMessage(`Exported "${record.title}" to ${path.basename(target.fsPath)}.`);
      return;
    }
    case 'jsonl': {
      const target = await saveTarget(record, 'jsonl');
      if (!target) return;
      await vscode.workspace.fs.copy(vscode.Uri.file(sessions.store.filePath(record)), target, { overwrite: true });
      void vscode.window.showInformationMessage(`Exported "${record.title}" to ${path.basename(target.fsPath)}.`);
      return;
    }
    case 'delete': {
      const confirm = await vscode.window.showWarningMessage(
        `Delete the session "${record.title}"? Its log moves to the trash where the system has one, else to a "deleted" folder beside the sessions.`,
        { modal: true },
        'Delete',
      );
      if (confirm !== 'Delete') return;
      await sessions.remove(record.id);
      const freed = sessions.store.lastCollection;
      const note = freed && freed.removed > 0 ? ` Freed ${(freed.bytesFreed / 1024 / 1024).toFixed(1)} MB of file snapshots, images and long outputs no other session uses.` : '';
      void vscode.window.showInformationMessage(`Deleted the session "${record.title}".${note}`);
      return;
    }
  }
}
