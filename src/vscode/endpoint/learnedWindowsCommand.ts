// The palette command that lists the context windows learned per endpoint and model, and forgets one or all of them.
import * as vscode from 'vscode';
import { formatCount } from '../../shared/budgetFormat';
import type { LearnedWindowEntry, WindowMemory } from './windowMemory';

export const LEARNED_WINDOWS_COMMAND = 'compactionAgent.learnedWindows';

interface EntryItem extends vscode.QuickPickItem {
  entry?: LearnedWindowEntry;
  all?: true;
}

/** One row: the model and its learned window, then where and how it was learned. */
export function learnedWindowItem(entry: LearnedWindowEntry, locale = 'en-US'): EntryItem {
  const how = entry.how === 'truncation' ? vscode.l10n.t('the server truncated a prompt') : vscode.l10n.t('an overflow error named it');
  const reported = entry.reported !== undefined ? vscode.l10n.t('; the server reported {0} then', formatCount(entry.reported, locale)) : '';
  return {
    label: entry.model,
    description: vscode.l10n.t('{0} tokens', formatCount(entry.tokens, locale)),
    detail: vscode.l10n.t('{0} · learned {1} because {2}{3}', entry.endpoint, new Date(entry.at).toLocaleString(locale), how, reported),
    entry,
  };
}

async function showLearnedWindows(memory: WindowMemory): Promise<void> {
  const entries = memory.list();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No context window has been learned: every window comes from the settings, the server or the model list.'));
    return;
  }
  const items: EntryItem[] = [
    ...entries.map((entry) => learnedWindowItem(entry, vscode.env.language)),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: `$(trash) ${vscode.l10n.t('Forget all learned windows')}`, all: true },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Learned context windows'),
    placeHolder: vscode.l10n.t('Pick one to forget it: the next request asks the server again'),
    matchOnDetail: true,
  });
  if (!picked) return;
  if (picked.all) {
    await memory.forget();
    void vscode.window.showInformationMessage(vscode.l10n.t('Forgot {0} learned context window(s).', entries.length));
  } else if (picked.entry) {
    await memory.forget(picked.entry);
    void vscode.window.showInformationMessage(vscode.l10n.t('Forgot the learned window of {0}.', picked.entry.model));
  }
}

export function registerLearnedWindowsCommand(memory: WindowMemory): vscode.Disposable {
  return vscode.commands.registerCommand(LEARNED_WINDOWS_COMMAND, () => showLearnedWindows(memory));
}
