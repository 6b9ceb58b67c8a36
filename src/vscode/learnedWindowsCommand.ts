// The palette command that lists the context windows learned per endpoint and model, and forgets one or all of them.
import * as vscode from 'vscode';
import { formatCount } from '../shared/budgetFormat';
import type { LearnedWindowEntry, WindowMemory } from './windowMemory';

export const LEARNED_WINDOWS_COMMAND = 'compactionAgent.learnedWindows';

interface EntryItem extends vscode.QuickPickItem {
  entry?: LearnedWindowEntry;
  all?: true;
}

/** One row: the model and its learned window, then where and how it was learned. */
export function learnedWindowItem(entry: LearnedWindowEntry, locale = 'en-US'): EntryItem {
  const how = entry.how === 'truncation' ? 'the server truncated a prompt' : 'an overflow error named it';
  const reported = entry.reported !== undefined ? `; the server reported ${formatCount(entry.reported, locale)} then` : '';
  return {
    label: entry.model,
    description: `${formatCount(entry.tokens, locale)} tokens`,
    detail: `${entry.endpoint} · learned ${new Date(entry.at).toLocaleString(locale)} because ${how}${reported}`,
    entry,
  };
}

async function showLearnedWindows(memory: WindowMemory): Promise<void> {
  const entries = memory.list();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('No context window has been learned: every window comes from the settings, the server or the model list.');
    return;
  }
  const items: EntryItem[] = [
    ...entries.map((entry) => learnedWindowItem(entry, vscode.env.language)),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: '$(trash) Forget all learned windows', all: true },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Learned context windows',
    placeHolder: 'Pick one to forget it: the next request asks the server again',
    matchOnDetail: true,
  });
  if (!picked) return;
  if (picked.all) {
    await memory.forget();
    void vscode.window.showInformationMessage(`Forgot ${entries.length} learned context window(s).`);
  } else if (picked.entry) {
    await memory.forget(picked.entry);
    void vscode.window.showInformationMessage(`Forgot the learned window of ${picked.entry.model}.`);
  }
}

export function registerLearnedWindowsCommand(memory: WindowMemory): vscode.Disposable {
  return vscode.commands.registerCommand(LEARNED_WINDOWS_COMMAND, () => showLearnedWindows(memory));
}
