// Asks the person before the agent writes a file or runs a command (unless they turned confirmations off): inline in the chat when asked from one.
import * as vscode from 'vscode';
import type { ConfirmRequest } from '../../core/tools/workspaceAccess';
import type { Configuration } from '../configuration';
import { APPROVE_COMMAND_TOOL, APPROVE_FILE_CHANGE_TOOL, approveInChat, type PendingConfirmations } from './confirmationTools';
import { askAcceptReject, reviewInDiff, type AskAboutChange } from './diffReview';
import type { ProposedContent } from './proposedContent';

/** Asks about one change; with the chat request's token the question is VS Code's inline Allow / Skip confirmation. */
export type ChatConfirmChange = (request: ConfirmRequest, signal?: AbortSignal, toolInvocationToken?: vscode.ChatRequest['toolInvocationToken']) => Promise<boolean>;

/** Outside a chat request there is no inline confirmation to show: a modal dialog is the only way left to ask. */
async function askCommandOutsideChat(request: Extract<ConfirmRequest, { kind: 'command' }>): Promise<boolean> {
  const run = vscode.l10n.t('Run');
  const choice = await vscode.window.showWarningMessage(vscode.l10n.t('@agent wants to run a command in {0}', request.cwd), { modal: true, detail: request.command }, run);
  return choice === run;
}

interface Asking {
  documents: ProposedContent;
  pending: PendingConfirmations;
  signal: AbortSignal | undefined;
  token?: vscode.ChatRequest['toolInvocationToken'];
}

function ask(request: ConfirmRequest, { documents, pending, signal, token }: Asking): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  const inChat = token !== undefined;
  const askChange: AskAboutChange = inChat ? (question, aborted) => approveInChat(APPROVE_FILE_CHANGE_TOOL, { path: question.relative, verb: question.verb, stats: question.stats }, token, pending, aborted) : askAcceptReject;
  switch (request.kind) {
    case 'command':
      return inChat ? approveInChat(APPROVE_COMMAND_TOOL, { command: request.command, cwd: request.cwd }, token, pending, signal) : askCommandOutsideChat(request);
    case 'write':
      return reviewInDiff({ path: request.path, before: request.before, after: request.after, verb: request.created ? 'create' : 'overwrite' }, documents, askChange, signal);
    case 'edit':
      return reviewInDiff({ path: request.path, before: request.before, after: request.after, verb: 'edit' }, documents, askChange, signal);
  }
}

/** One confirmation at a time (two chats may ask at once): each waits for the previous answer. */
export function changeConfirmation(configuration: Configuration, documents: ProposedContent, pending: PendingConfirmations): ChatConfirmChange {
  let previous: Promise<unknown> = Promise.resolve();
  return (request, signal, token) => {
    if (!configuration.settings.tools.requireConfirmation) return Promise.resolve(true);
    const answer = previous.then(() => ask(request, { documents, pending, signal, token }));
    previous = answer.catch(() => undefined);
    return answer;
  };
}
