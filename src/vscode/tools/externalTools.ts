// VS Code's own tools (vscode.lm.tools, MCP servers included) offered to the agent next to the built-in ones.
import * as vscode from 'vscode';
import type { ExternalTool } from '../../core/tools/toolTypes';
import { CONFIRMATION_TOOLS } from './confirmationTools';

function resultText(result: vscode.LanguageModelToolResult): string {
  const parts: unknown[] = result.content;
  let text = '';
  for (const part of parts) if (part instanceof vscode.LanguageModelTextPart) text += part.value;
  return text.trim();
}

/** Every tool VS Code knows but our own confirmations, invoked with the chat request's token so confirmations show in the chat. */
export function externalTools(toolInvocationToken?: vscode.ChatRequest['toolInvocationToken']): ExternalTool[] {
  return vscode.lm.tools.filter((info) => !CONFIRMATION_TOOLS.includes(info.name)).map((info) => ({
    name: info.name,
    description: info.description,
    inputSchema: (info.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
    async invoke(args: unknown, signal: AbortSignal): Promise<string> {
      const source = new vscode.CancellationTokenSource();
      const cancel = (): void => source.cancel();
      signal.addEventListener('abort', cancel, { once: true });
      try {
        const input = typeof args === 'object' && args !== null ? args : {};
        const result = await vscode.lm.invokeTool(info.name, { input, toolInvocationToken }, source.token);
        return resultText(result) || '(the tool returned no text)';
      } finally {
        signal.removeEventListener('abort', cancel);
        source.dispose();
      }
    },
  }));
}
