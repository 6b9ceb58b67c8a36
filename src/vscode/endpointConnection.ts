// The configured endpoint: settings plus the secret key turned into clients, and its model list (cached, key-free errors).
import * as vscode from 'vscode';
import { detectEndpointFlags } from '../core/llm/endpointFlags';
import type { ModelInfo } from '../core/llm/modelList';
import { OpenAiChatClient } from '../core/llm/openaiChatClient';
import type { Settings } from '../core/settings/settings';
import type { ApiKeyStore } from './apiKeyStore';
import type { Configuration } from './configuration';
import type { Logger } from './logger';

export class EndpointConnection implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private models: Promise<ModelInfo[]> | undefined;

  /** Fires when the endpoint, its key or its models may have changed. */
  readonly onDidChangeEndpoint = this.changed.event;

  constructor(
    private readonly configuration: Configuration,
    private readonly keys: ApiKeyStore,
    private readonly logger: Logger,
  ) {
    const reset = (): void => {
      this.models = undefined;
      this.changed.fire();
    };
    this.subscriptions.push(configuration.onDidChangeSettings(reset), keys.onDidChangeApiKey(reset));
  }

  get configured(): boolean {
    return this.configuration.settings.endpoint.baseUrl !== '';
  }

  /** A client for one model of the endpoint (the summarizer may use another model than the chat). */
  async client(model: string): Promise<OpenAiChatClient> {
    const endpoint = this.configuration.settings.endpoint;
    const apiKey = (await this.keys.get()) ?? '';
    return new OpenAiChatClient({
      baseUrl: endpoint.baseUrl,
      apiKey,
      model,
      headers: endpoint.headers,
      flags: detectEndpointFlags(endpoint.baseUrl, endpoint),
      timeoutMs: endpoint.timeoutSeconds * 1000,
      maxRetries: endpoint.maxRetries,
    });
  }

  /** The endpoint's models (the configured one first, or only it when the listing fails). */
  listModels(): Promise<ModelInfo[]> {
    this.models ??= this.fetchModels();
    return this.models;
  }

  private async fetchModels(): Promise<ModelInfo[]> {
    const settings: Settings = this.configuration.settings;
    if (!this.configured) return [];
    const configured = settings.endpoint.model;
    let listed: ModelInfo[] = [];
    try {
      const client = await this.client(configured || 'model');
      listed = await client.listModels();
    } catch (error) {
      this.logger.warn(`Could not list the endpoint's models: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!configured) return listed;
    const match = listed.find((model) => model.id === configured);
    return [match ?? { id: configured }];
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}
