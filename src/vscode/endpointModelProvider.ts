// Offers the configured endpoint's models to all of VS Code (model picker, other extensions) as a language-model provider.
import * as vscode from 'vscode';
import { resolveContextWindow } from '../core/budget/contextWindow';
import type { ChatRequest } from '../core/llm/modelStream';
import { TokenCounter } from '../core/tokens/tokenCounter';
import type { Configuration } from './configuration';
import type { EndpointConnection } from './endpointConnection';
import { fromLanguageModelMessages } from './languageModelMessages';

export const VENDOR = 'compaction-agent';

/**
 * Offered while no endpoint is configured, so the Chat view can send to @agent even in VS Code builds
 * without any other model (code-server, VSCodium); @agent then answers with how to configure one.
 */
export const SETUP_MODEL_ID = 'compaction-agent-setup';

interface EndpointModelInformation extends vscode.LanguageModelChatInformation {
  contextWindow: number;
}

export class EndpointModelProvider implements vscode.LanguageModelChatProvider<EndpointModelInformation> {
  readonly onDidChangeLanguageModelChatInformation: vscode.Event<void>;

  constructor(
    private readonly endpoint: EndpointConnection,
    private readonly configuration: Configuration,
  ) {
    this.onDidChangeLanguageModelChatInformation = endpoint.onDidChangeEndpoint;
  }

  async provideLanguageModelChatInformation(): Promise<EndpointModelInformation[]> {
    const settings = this.configuration.settings;
    if (!this.endpoint.configured) return [setupModel()];
    const models = await this.endpoint.listModels();
    return models.map((model) => {
      const window = resolveContextWindow({
        setting: settings.context.windowTokens,
        modelMetadata: undefined,
        endpointList: model.contextWindow,
      });
      const maxOutputTokens = Math.min(model.maxOutputTokens ?? settings.context.maxOutputTokens, settings.context.maxOutputTokens);
      return {
        id: model.id,
        name: model.id,
        family: model.id,
        version: '1',
        detail: new URL(settings.endpoint.baseUrl).host,
        tooltip: `${model.id} on ${settings.endpoint.baseUrl} (${window.tokens.toLocaleString('en-US')} tokens, from ${window.source})`,
        maxInputTokens: Math.max(1, window.tokens - maxOutputTokens),
        maxOutputTokens,
        contextWindow: window.tokens,
        capabilities: { toolCalling: true, imageInput: false },
      };
    });
  }

  async provideLanguageModelChatResponse(
    model: EndpointModelInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    if (model.id === SETUP_MODEL_ID) {
      throw new Error('No endpoint is configured for Compaction Agent: set compactionAgent.endpoint.baseUrl (Compaction Agent: Open Settings).');
    }
    const abort = new AbortController();
    const subscription = token.onCancellationRequested(() => abort.abort());
    try {
      const client = await this.endpoint.client(model.id);
      const request: ChatRequest = {
        messages: fromLanguageModelMessages(messages),
        tools: (options.tools ?? []).map((tool) => ({
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: (tool.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} } },
        })),
        maxOutputTokens: model.maxOutputTokens,
      };
      for await (const event of client.stream(request, abort.signal)) {
        if (event.type === 'textDelta') progress.report(new vscode.LanguageModelTextPart(event.text));
        if (event.type === 'error') throw new Error(event.error.message);
        if (event.type === 'done') {
          for (const call of event.toolCalls) progress.report(new vscode.LanguageModelToolCallPart(call.id, call.name, parseObject(call.arguments)));
        }
      }
    } finally {
      subscription.dispose();
    }
  }

  async provideTokenCount(model: EndpointModelInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    const counter = await TokenCounter.create(model.id);
    if (typeof text === 'string') return counter.countText(text);
    return counter.countMessages(fromLanguageModelMessages([text]));
  }
}

function setupModel(): EndpointModelInformation {
  return {
    id: SETUP_MODEL_ID,
    name: 'Compaction Agent (set up an endpoint)',
    family: SETUP_MODEL_ID,
    version: '1',
    tooltip: 'No endpoint is configured yet: choose this and ask @agent, or run Compaction Agent: Open Settings.',
    maxInputTokens: 100_000,
    maxOutputTokens: 4096,
    contextWindow: 128_000,
    capabilities: { toolCalling: true, imageInput: false },
  };
}

function parseObject(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}
