// Asks before a running request of a session is stopped for a change of that session (a restore, a branch switch, a drop).
import * as vscode from 'vscode';

/** True when the person chose to stop the running request; `what` names the change, e.g. "restoring a checkpoint". */
export async function confirmStopRequest(what: string): Promise<boolean> {
  const stop = vscode.l10n.t('Stop and Continue');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('A request of this session is running. Stop it before {0}?', what),
    { modal: true, detail: vscode.l10n.t('What it did so far stays in the session. Otherwise nothing changes; try again when it has finished.') },
    stop,
  );
  return choice === stop;
}
