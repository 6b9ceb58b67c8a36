// A ModelStream over any model VS Code offers (request.model.sendRequest), for models that are not our endpoint's.
import * as vscode from 'vscode';
import { classifyOverflow } from '../../core/llm/overflowPatterns';
import type { ChatRequest, ModelError, ModelStream, StreamEvent } from '../../core/llm/modelStream';
import type { ToolCall, Usage } from '../../core/session/entries';
import { toLanguageModelMessages, toLanguageModelTools } from './languageModelMessages';

function classify(error: unknown, cancelled: boolean): ModelError {
  const message = error instanceof Error ? error.message : String(error);
  if (cancelled) return { kind: 'aborted', message: 'The request was cancelled.', retryable: false };
  const known = error instanceof vscode.LanguageModelError && [vscode.LanguageModelError.NoPermissions.name, vscode.LanguageModelError.NotFound.name, vscode.LanguageModelError.Blocked.name].includes(error.code);
  const overflow = known ? undefined : classifyOverflow(message);
  if (overflow) {
    // The provider's text often names the window ("maximum context length is 128000 tokens"): that teaches it, as for our endpoint.
    // A wording we do not know that names a token limit is an overflow too, but its numbers are not read.
    const { recognized, ...facts } = overflow;
    const note = recognized ? '' : ' (not a message we know, but it names a token limit, so it is taken as a context overflow)';
    return { kind: 'overflow', message: `The conversation is longer than the model's context window: ${message}${note}`, retryable: false, ...facts };
  }
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
      const messages = toLanguageModelMessages(request.messages);
      const tools = toLanguageModelTools(request.tools);
      const response = await this.model.sendRequest(messages, { tools, justification: 'Compaction Agent runs your request with this model.' }, source.token);
      // Counted while the reply streams: VS Code models report no usage, so their own tokenizer stands in for it.
      const prompt = this.countPrompt(messages, tools, source.token);
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
      const usage = await this.usage(prompt, text, toolCalls, source.token);
      yield { type: 'done', text, toolCalls, invalidArguments: [], stopReason: toolCalls.length > 0 ? 'toolCalls' : 'stop', ...(usage ? { usage } : {}) };
    } catch (error) {
      yield { type: 'error', error: classify(error, signal.aborted), partial: { text, toolCalls } };
    } finally {
      signal.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }

  /**
   * The prompt as the model's own tokenizer counts it (messages, plus the tool definitions as JSON), or undefined
   * when counting fails, takes too long or answers nonsense: then the meter keeps its own estimate.
   */
  private async countPrompt(messages: vscode.LanguageModelChatMessage[], tools: vscode.LanguageModelChatTool[], token: vscode.CancellationToken): Promise<number | undefined> {
    const counting = (async () => {
      const counts = await Promise.all([...messages.map((message) => this.model.countTokens(message, token)), tools.length > 0 ? this.model.countTokens(JSON.stringify(tools), token) : 0]);
      return counts.every(isPlausibleCount) ? counts.reduce((sum, count) => sum + count, 0) : undefined;
    })();
    return withinTime(counting.catch(() => undefined), COUNT_TIME_LIMIT_MS);
  }

  private async usage(prompt: Promise<number | undefined>, text: string, calls: readonly ToolCall[], token: vscode.CancellationToken): Promise<Usage | undefined> {
    const promptTokens = await prompt;
    if (promptTokens === undefined || promptTokens <= 0) return undefined;
    const output = text + calls.map((call) => call.arguments).join('');
    const completionTokens = output === '' ? 0 : await withinTime(Promise.resolve(this.model.countTokens(output, token)).catch(() => undefined), COUNT_TIME_LIMIT_MS);
    return isPlausibleCount(completionTokens) ? { promptTokens, completionTokens } : undefined;
  }

  /** The model's own count, for models whose tokenizer we do not have. */
  async countTokens(text: string): Promise<number> {
    return this.model.countTokens(text);
  }
}

/** Counting is a local call for Copilot's models, but a provider may be slow: the turn never waits longer than this. */
const COUNT_TIME_LIMIT_MS = 3000;

function isPlausibleCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 100_000_000;
}

function withinTime<T>(work: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    void work.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
