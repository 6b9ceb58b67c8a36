// Converts the core's OpenAI-shaped messages and tools to VS Code's language-model types, and back.
import * as vscode from 'vscode';
import type { ChatMessage, ChatToolDefinition } from '../../core/context/chatMessage';

function parseArguments(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : { value };
  } catch {
    return { invalidJson: text };
  }
}

/** VS Code's stable API has no system role: the system prompt becomes the first user message, clearly framed. */
export function toLanguageModelMessages(messages: ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        out.push(vscode.LanguageModelChatMessage.User(`[System instructions]\n${message.content}`));
        break;
      case 'user':
        out.push(vscode.LanguageModelChatMessage.User(message.content));
        break;
      case 'assistant': {
        const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
        if (message.content) parts.push(new vscode.LanguageModelTextPart(message.content));
        for (const call of message.tool_calls ?? []) {
          parts.push(new vscode.LanguageModelToolCallPart(call.id, call.function.name, parseArguments(call.function.arguments)));
        }
        out.push(vscode.LanguageModelChatMessage.Assistant(parts));
        break;
      }
      case 'tool':
        out.push(
          vscode.LanguageModelChatMessage.User([
            new vscode.LanguageModelToolResultPart(message.tool_call_id, [new vscode.LanguageModelTextPart(message.content)]),
          ]),
        );
        break;
    }
  }
  return out;
}

export function toLanguageModelTools(tools: ChatToolDefinition[] | undefined): vscode.LanguageModelChatTool[] {
  return (tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description,
    inputSchema: tool.function.parameters,
  }));
}

function partText(part: unknown): string {
  if (part instanceof vscode.LanguageModelTextPart) return part.value;
  if (part instanceof vscode.LanguageModelToolResultPart) return part.content.map(partText).join('');
  return '';
}

/** The reverse direction, for our language-model provider: VS Code request messages to OpenAI messages. */
export function fromLanguageModelMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === vscode.LanguageModelChatMessageRole.Assistant) {
      const text = message.content.map(partText).join('');
      const calls = message.content
        .filter((part): part is vscode.LanguageModelToolCallPart => part instanceof vscode.LanguageModelToolCallPart)
        .map((part) => ({
          id: part.callId,
          type: 'function' as const,
          function: { name: part.name, arguments: JSON.stringify(part.input) },
        }));
      out.push(calls.length > 0 ? { role: 'assistant', content: text || null, tool_calls: calls } : { role: 'assistant', content: text });
      continue;
    }
    const results = message.content.filter(
      (part): part is vscode.LanguageModelToolResultPart => part instanceof vscode.LanguageModelToolResultPart,
    );
    for (const result of results) out.push({ role: 'tool', tool_call_id: result.callId, content: partText(result) });
    const text = message.content
      .filter((part) => !(part instanceof vscode.LanguageModelToolResultPart))
      .map(partText)
      .join('');
    if (text || results.length === 0) out.push({ role: 'user', content: text });
  }
  return out;
}
