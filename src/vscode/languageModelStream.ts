// A ModelStream over any model VS Code offers (request.model.sendRequest), for models that are not our endpoint's.
import * as vscode from 'vscode';
import { matchOverflow } from '../core/llm/overflowPatterns';
import type { ChatRequest, ModelError, ModelStream, StreamEvent } from '../core/llm/modelStream';
import type { ToolCall } from '../core/session/entries';
import { toLanguageModelMessages, toLanguageModelTools } from './languageModelMessages';

function classify(error: unknown, cancelled: boolean): ModelError {
  const message = error instanceof Error ? error.message : String(error);
  if (cancelled) return { kind: 'aborted', message: 'The request was cancelled.', retryable: false };
  if (matchOverflow(message)) return { kind: 'overflow', message: `The conversation is longer than the model's context window: ${message}`, retryable: false };
  if (error instanceof vscode.LanguageModelError) {
    if (error.code === vscode.LanguageModelError.NoPermissions.name) {
      return { kind: 'auth', message: `The model is not available to this extension: ${message}`, retryable: false };
    }
    if (error.code === vscode.LanguageModelError.NotFound.name) {
      return { kind: 'notFound', message: `The model was not found: ${message}`, retryable: false };
    }
    if (error.code === vscode.LanguageModelError.Blocked.name) {
      return { kind: 'rateLimit', message: `The model blocked the request: ${message}`, retryable: true };
    }
  }
  return { kind: 'server', message: `The model failed: ${message}`, retryable: false };
}

export class LanguageModelStream implements ModelStream {
  /** Requests sent so far; with Copilot each may count as a premium request. */
  private sent = 0;

  constructor(private readonly model: vscode.LanguageModelChat) {}

  get modelId(): string {
    return this.model.id;
  }

  /** The name VS Code shows for the model, e.g. "GPT-4o". */
  get modelName(): string {
    return this.model.name || this.model.id;
  }

  get requests(): number {
    return this.sent;
  }

  async *stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const source = new vscode.CancellationTokenSource();
    const onAbort = (): void => source.cancel();
    signal.addEventListener('abort', onAbort);
    let text = '';
    const toolCalls: ToolCall[] = [];
    try {
      this.sent++;
      const response = await this.model.sendRequest(
        toLanguageModelMessages(request.messages),
        { tools: toLanguageModelTools(request.tools), justification: 'Compaction Agent runs your request with this model.' },
        source.token,
      );
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          yield { type: 'textDelta', text: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          yield { type: 'toolCallStart', index: toolCalls.length, id: part.callId, name: part.name };
          toolCalls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input) });
        }
      }
      if (signal.aborted) throw new Error('cancelled');
      yield { type: 'done', text, toolCalls, invalidArguments: [], stopReason: toolCalls.length > 0 ? 'toolCalls' : 'stop' };
    } catch (error) {
      yield { type: 'error', error: classify(error, signal.aborted), partial: { text, toolCalls } };
    } finally {
      signal.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }

  /** The model's own count, for models whose tokenizer we do not have. */
  async countTokens(text: string): Promise<number> {
    return this.model.countTokens(text);
  }
}
