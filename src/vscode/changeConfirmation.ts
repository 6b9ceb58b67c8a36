// Asks the person before the agent writes a file or runs a command (unless they turned confirmations off).
import * as vscode from 'vscode';
import type { ConfirmChange, ConfirmRequest } from '../core/tools/workspaceAccess';
import type { Configuration } from './configuration';

const PREVIEW_LINES = 12;

function preview(text: string): string {
  const lines = text.split('\n');
  return lines.length > PREVIEW_LINES ? `${lines.slice(0, PREVIEW_LINES).join('\n')}\n… (${lines.length - PREVIEW_LINES} more lines)` : text;
}

function describe(request: ConfirmRequest): { message: string; detail: string; action: string } {
  switch (request.kind) {
    case 'command':
      return { message: `@agent wants to run a command in ${request.cwd}`, detail: request.command, action: 'Run' };
    case 'write':
      return {
        message: `@agent wants to ${request.created ? 'create' : 'overwrite'} ${vscode.workspace.asRelativePath(request.path)}`,
        detail: preview(request.after),
        action: request.created ? 'Create' : 'Overwrite',
      };
    case 'edit':
      return {
        message: `@agent wants to edit ${vscode.workspace.asRelativePath(request.path)}`,
        detail: `Replace:\n${preview(request.before)}\n\nWith:\n${preview(request.after)}`,
        action: 'Apply Edit',
      };
  }
}

export function changeConfirmation(configuration: Configuration): ConfirmChange {
  return async (request) => {
    if (!configuration.settings.tools.requireConfirmation) return true;
    const { message, detail, action } = describe(request);
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, action);
    return choice === action;
  };
}
