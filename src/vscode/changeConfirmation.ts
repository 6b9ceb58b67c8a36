// Asks the person before the agent writes a file or runs a command (unless they turned confirmations off).
import * as vscode from 'vscode';
import type { ConfirmChange, ConfirmRequest } from '../core/tools/workspaceAccess';
import type { Configuration } from './configuration';
import { reviewInDiff } from './diffReview';
import type { ProposedContent } from './proposedContent';

async function askCommand(request: Extract<ConfirmRequest, { kind: 'command' }>): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(`@agent wants to run a command in ${request.cwd}`, { modal: true, detail: request.command }, 'Run');
  return choice === 'Run';
}

function ask(request: ConfirmRequest, documents: ProposedContent, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  switch (request.kind) {
    case 'command':
      return askCommand(request);
    case 'write':
      return reviewInDiff({ path: request.path, before: request.before, after: request.after, verb: request.created ? 'create' : 'overwrite' }, documents, signal);
    case 'edit':
      return reviewInDiff({ path: request.path, before: request.before, after: request.after, verb: 'edit' }, documents, signal);
  }
}

/** One confirmation at a time (two chats may ask at once): each waits for the previous answer. */
export function changeConfirmation(configuration: Configuration, documents: ProposedContent): ConfirmChange {
  let previous: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    if (!configuration.settings.tools.requireConfirmation) return Promise.resolve(true);
    const answer = previous.then(() => ask(request, documents, signal));
    previous = answer.catch(() => undefined);
    return answer;
  };
}
