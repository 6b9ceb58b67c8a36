// Offers the configured endpoint's models to all of VS Code (model picker, other extensions) as a language-model provider.
import { modelTakesImages } from '../../core/context/userImages';
import * as vscode from 'vscode';
import { findListedModel } from '../../core/llm/modelList';
import { resolveContextWindow } from '../../core/llm/contextWindow';
import { windowSettingFor } from '../../core/settings/settings';
import type { ChatRequest } from '../../core/llm/modelStream';
import { TokenCounter } from '../../core/tokens/tokenCounter';
import type { Configuration } from '../configuration';
import type { EndpointConnection } from './endpointConnection';
import { SET_UP_COMMAND } from './endpointSetup';
import { fromLanguageModelMessages } from './languageModelMessages';
import type { Logger } from '../logger';
import { OtherVendorModels } from './otherVendorModels';
import { formatCount } from '../../shared/budgetFormat';

export const VENDOR = 'compaction-agent';

/**
 * Offered while no endpoint model exists and no other vendor offers one, so the Chat view can send to @agent even
 * in VS Code builds without any other model (code-server, VSCodium); @agent then answers with how to set one up.
 * Hidden as soon as another vendor has a model: picked in that vendor's participants it could only fail.
 */
export const SETUP_MODEL_ID = 'compaction-agent-setup';

/** Beyond this many listed models, only the listing is read: probing each would flood the server. */
const MAX_PROBED_MODELS = 20;

interface EndpointModelInformation extends vscode.LanguageModelChatInformation {
  contextWindow: number;
}

export class EndpointModelProvider implements vscode.LanguageModelChatProvider<EndpointModelInformation>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly otherModels: OtherVendorModels;
  private readonly subscriptions: vscode.Disposable[];
  private readonly reportedFailures = new Set<string>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;

  constructor(
    private readonly endpoint: EndpointConnection,
    private readonly configuration: Configuration,
    logger: Logger,
  ) {
    this.otherModels = new OtherVendorModels(VENDOR, logger);
    this.subscriptions = [
      this.otherModels,
      this.otherModels.onDidChange(() => this.changed.fire()),
      endpoint.onDidChangeEndpoint(() => {
        this.reportedFailures.clear();
        this.changed.fire();
      }),
    ];
  }

  /** Honours `silent`: a failed listing is only reported when the workbench says the person may be prompted. */
  async provideLanguageModelChatInformation(options: vscode.PrepareLanguageModelChatModelOptions): Promise<EndpointModelInformation[]> {
    const settings = this.configuration.settings;
    if (!this.endpoint.configured) return this.placeholder(vscode.l10n.t('No endpoint is configured yet'));
    const models = await this.endpoint.listModels();
    if (models.length === 0) {
      const failure = this.endpoint.lastListingError;
      if (failure && !options.silent) this.reportListingFailure(settings.endpoint.baseUrl, failure);
      return this.placeholder(failure ? vscode.l10n.t("The endpoint's models could not be listed ({0})", failure) : vscode.l10n.t('The endpoint lists no models'));
    }
    const probe = models.length <= MAX_PROBED_MODELS;
    return Promise.all(models.map((listed) => findListedModel(models, listed.id) ?? listed).map(async (model) => {
      const window = resolveContextWindow({ setting: windowSettingFor(settings, model.id), ...(await this.endpoint.windowInputs(model, probe)) });
      const from = window.detail ?? window.source;
      const maxOutputTokens = Math.min(model.maxOutputTokens ?? settings.context.maxOutputTokens, settings.context.maxOutputTokens);
      return {
        id: model.id,
        name: model.id,
        family: model.id,
        version: '1',
        detail: new URL(settings.endpoint.baseUrl).host,
        tooltip: `${model.id} on ${settings.endpoint.baseUrl} (${formatCount(window.tokens, vscode.env.language)} tokens, ${from.startsWith('from ') ? from : `from ${from}`})`,
        maxInputTokens: Math.max(1, window.tokens - maxOutputTokens),
        maxOutputTokens,
        contextWindow: window.tokens,
        capabilities: { toolCalling: true, imageInput: modelTakesImages(model.id, settings.endpoint.imageInput) },
      };
    }));
  }

  private placeholder(reason: string): EndpointModelInformation[] {
    return this.otherModels.available ? [] : [setupModel(reason)];
  }

  private reportListingFailure(baseUrl: string, failure: string): void {
    if (this.reportedFailures.has(failure)) return;
    this.reportedFailures.add(failure);
    const setUp = vscode.l10n.t('Set Up Endpoint');
    const openSettings = vscode.l10n.t('Open Settings');
    void vscode.window.showErrorMessage(vscode.l10n.t('Compaction Agent could not list the models at {0}: {1}', baseUrl, failure), setUp, openSettings).then((choice) => {
      if (choice === setUp) void vscode.commands.executeCommand(SET_UP_COMMAND);
      if (choice === openSettings) void vscode.commands.executeCommand('compactionAgent.openSettings');
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
      throw new Error(vscode.l10n.t('Compaction Agent has no endpoint model yet: run Compaction Agent: Set Up Endpoint, then pick one of its models.'));
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

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

function setupModel(reason: string): EndpointModelInformation {
  return {
    id: SETUP_MODEL_ID,
    name: vscode.l10n.t('Compaction Agent (set up an endpoint)'),
    family: SETUP_MODEL_ID,
    version: '1',
    tooltip: vscode.l10n.t('{0}: choose this and ask @agent, or run Compaction Agent: Set Up Endpoint.', reason),
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
