// The configured endpoint: settings plus the secret key turned into clients, and its model list (cached, key-free errors).
import * as vscode from 'vscode';
import { detectEndpointFlags } from '../core/llm/endpointFlags';
import type { ModelInfo } from '../core/llm/modelList';
import { OpenAiChatClient } from '../core/llm/openaiChatClient';
import type { EndpointFlavor, Settings } from '../core/settings/settings';
import type { ApiKeyStore } from './apiKeyStore';
import type { Configuration } from './configuration';
import type { Logger } from './logger';

/** An endpoint not saved yet (the guided setup tries it before writing the settings). */
export interface EndpointCandidate {
  baseUrl: string;
  apiKey: string | undefined;
  flavor: EndpointFlavor;
}

/** How long the guided setup waits for a listing: a wrong host should fail while the person is still looking. */
const PROBE_TIMEOUT_MS = 15_000;

export class EndpointConnection implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private models: Promise<ModelInfo[]> | undefined;
  private listingError: string | undefined;

  /** Fires when the endpoint, its key or its models may have changed. */
  readonly onDidChangeEndpoint = this.changed.event;

  constructor(
    private readonly configuration: Configuration,
    private readonly keys: ApiKeyStore,
    private readonly logger: Logger,
  ) {
    const reset = (): void => {
      this.models = undefined;
      this.listingError = undefined;
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

  /** Why the last listing of the configured endpoint failed (key-free), until the endpoint changes. */
  get lastListingError(): string | undefined {
    return this.listingError;
  }

  /** Lists the models of an endpoint that is not saved yet; rejects with a ModelCallError saying what went wrong. */
  async listModelsAt(candidate: EndpointCandidate, signal?: AbortSignal): Promise<ModelInfo[]> {
    const endpoint = this.configuration.settings.endpoint;
    const client = new OpenAiChatClient({
      baseUrl: candidate.baseUrl,
      apiKey: candidate.apiKey ?? '',
      model: 'model',
      headers: endpoint.headers,
      flags: detectEndpointFlags(candidate.baseUrl, { flavor: candidate.flavor }),
      timeoutMs: PROBE_TIMEOUT_MS,
      maxRetries: 0,
    });
    return client.listModels(signal);
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
      this.listingError = undefined;
    } catch (error) {
      this.listingError = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Could not list the endpoint's models: ${this.listingError}`);
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
