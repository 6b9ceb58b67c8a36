// The configured endpoint: settings plus the secret key turned into clients, and its model list (cached, key-free errors).
import * as vscode from 'vscode';
import type { ContextWindowInputs } from '../../core/llm/contextWindow';
import { detectEndpointFlags } from '../../core/llm/endpointFlags';
import { findListedModel, type ModelInfo } from '../../core/llm/modelList';
import type { DoneEvent } from '../../core/llm/modelStream';
import { OpenAiChatClient } from '../../core/llm/openaiChatClient';
import { serverFetchJson } from '../../core/llm/serverFetch';
import type { DiscoveredWindow } from '../../core/llm/serverWindowFacts';
import { discoverWindow, raiseWindowHint, servedModelWindow, serverTruncates } from '../../core/llm/windowDiscovery';
import { openAiContextWindow } from '../../core/llm/openAiModelWindows';
import type { EndpointFlavor, Settings } from '../../core/settings/settings';
import type { ApiKeyStore } from './apiKeyStore';
import type { Configuration } from '../configuration';
import type { Logger } from '../logger';
import type { WindowMemory } from './windowMemory';

/** An endpoint not saved yet (the guided setup tries it before writing the settings). */
export interface EndpointCandidate {
  baseUrl: string;
  apiKey: string | undefined;
  flavor: EndpointFlavor;
}

/** How long the guided setup waits for a listing: a wrong host should fail while the person is still looking. */
const PROBE_TIMEOUT_MS = 15_000;
/** A probe that found the model not loaded is asked again after this long (the next request loads it). */
const UNTIL_LOADED_RETRY_MS = 5_000;

/** How the server treats a prompt longer than its window, for the agent loop. */
export interface ServerWindowBehaviour {
  serverTruncates: boolean;
  raiseWindowHint: string;
}

export class EndpointConnection implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private models: Promise<ModelInfo[]> | undefined;
  private listingError: string | undefined;
  private readonly probes = new Map<string, Promise<DiscoveredWindow | undefined>>();
  /** Windows learned from the model a reply named (an Azure deployment's model), per model id. */
  private readonly servedWindows = new Map<string, DiscoveredWindow>();
  /** Models whose server had not loaded them when asked (a length until loaded, or one read before loading): asked again after a reply. */
  private readonly askAgain = new Set<string>();

  /** Fires when the endpoint, its key or its models may have changed. */
  readonly onDidChangeEndpoint = this.changed.event;

  constructor(
    private readonly configuration: Configuration,
    private readonly keys: ApiKeyStore,
    private readonly logger: Logger,
    /** Windows learned from overflow errors, per endpoint and model. */
    readonly windows: WindowMemory,
  ) {
    const reset = (): void => {
      this.models = undefined;
      this.listingError = undefined;
      this.probes.clear();
      this.servedWindows.clear();
      this.askAgain.clear();
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
      imageInput: endpoint.imageInput,
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
    return [findListedModel(listed, configured) ?? { id: configured }];
  }

  /** The listing's entry for a model (a LoRA adapter's base window, an OpenRouter variant's base id), or just its id. */
  async listedModel(id: string): Promise<ModelInfo> {
    return findListedModel(await this.listModels(), id) ?? { id };
  }

  /** The key learned windows of this endpoint's models are remembered under. */
  get windowKey(): string {
    return this.configuration.settings.endpoint.baseUrl;
  }

  /** Whether the configured server truncates long prompts, and how to raise its window. */
  get windowBehaviour(): ServerWindowBehaviour {
    const endpoint = this.configuration.settings.endpoint;
    const { flavor } = detectEndpointFlags(endpoint.baseUrl, endpoint);
    return { serverTruncates: serverTruncates(flavor), raiseWindowHint: raiseWindowHint(flavor) };
  }

  /**
   * Everything known of a listed model's window but the setting: a learned one, the listing's, and when the
   * listing does not say what runs, the server's own API (asked once per model until the endpoint changes,
   * again while the model is not loaded), then the listing's trained length as a labelled fallback, or
   * gpt-tokenizer's data for OpenAI models. `probe: false` skips the server (for long model lists).
   */
  async windowInputs(info: ModelInfo, probe = true): Promise<ContextWindowInputs> {
    const learned = this.windows.fact(this.windowKey, info.id) ?? null;
    if (info.contextWindow !== undefined) return { learned, endpointList: info.contextWindow, ...(info.windowDetail ? { endpointDetail: info.windowDetail } : {}) };
    const served = this.servedWindows.get(info.id);
    if (served) return { learned, server: { contextWindow: served.tokens, detail: served.detail } };
    const discovered = probe ? await this.probe(info.id) : undefined;
    if (discovered && !discovered.untilLoaded) return { learned, server: { contextWindow: discovered.tokens, detail: discovered.detail, ...(discovered.beforeLoad ? { beforeLoad: true } : {}) } };
    if (discovered) return { learned, server: { contextWindow: discovered.tokens, detail: discovered.detail, untilLoaded: true } };
    if (info.trainedWindow !== undefined) {
      return { learned, server: { contextWindow: info.trainedWindow, detail: vscode.l10n.t("the model list's trained length (the server did not say what it runs; unknown until loaded)"), untilLoaded: true } };
    }
    const openAi = await openAiContextWindow(info.id);
    return { learned, modelMetadata: openAi === undefined ? null : { contextWindow: openAi, detail: vscode.l10n.t("from gpt-tokenizer's OpenAI model data") } };
  }

  /**
   * After a reply while the window was unknown or read before the model was loaded: the window the reply showed. The
   * model a deployment runs (Azure and LiteLLM name it in every chunk), else the server asked again (the reply loaded
   * the model: Ollama's /api/ps, a llama.cpp router's /props, LM Studio's loaded instance). Kept until the endpoint changes.
   */
  async windowAfterReply(model: string, done: DoneEvent): Promise<DiscoveredWindow | undefined> {
    const endpoint = this.configuration.settings.endpoint;
    const { flavor } = detectEndpointFlags(endpoint.baseUrl, endpoint);
    if (flavor === 'azure' || flavor === 'litellm' || flavor === 'openai') {
      const fromReply = await servedModelWindow(done.servedModel);
      if (fromReply) {
        this.servedWindows.set(model, fromReply);
        return fromReply;
      }
    }
    // Only a server that loads models on demand can say more now; a generic one that said nothing is not asked again.
    if (!this.askAgain.has(model) && flavor !== 'ollama' && flavor !== 'llamacpp' && flavor !== 'lmstudio') return undefined;
    this.probes.delete(model);
    const found = await this.probe(model);
    return found && !found.untilLoaded ? found : undefined;
  }

  private probe(model: string): Promise<DiscoveredWindow | undefined> {
    const known = this.probes.get(model);
    if (known) return known;
    const answer = this.runProbe(model);
    this.probes.set(model, answer);
    // What a server that has not loaded the model says is only good until it loads it (the next request does).
    void answer.then((found) => {
      if (!found?.untilLoaded && !found?.beforeLoad) return;
      this.askAgain.add(model);
      const timer = setTimeout(() => {
        if (this.probes.get(model) === answer) this.probes.delete(model);
      }, UNTIL_LOADED_RETRY_MS);
      timer.unref?.();
    });
    return answer;
  }

  private async runProbe(model: string): Promise<DiscoveredWindow | undefined> {
    const endpoint = this.configuration.settings.endpoint;
    const flags = detectEndpointFlags(endpoint.baseUrl, endpoint);
    const apiKey = await this.keys.get();
    const auth: Record<string, string> = apiKey ? (flags.apiKeyHeader === 'api-key' ? { 'api-key': apiKey } : { authorization: `Bearer ${apiKey}` }) : {};
    const fetchJson = serverFetchJson(endpoint.baseUrl, { ...endpoint.headers, ...auth });
    const found = fetchJson ? await discoverWindow(flags.flavor, model, fetchJson) : undefined;
    if (found?.warning) this.logger.warn(`${model}: ${found.tokens.toLocaleString('en-US')}-token window from ${found.detail}, but ${found.warning}.`);
    return found;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}
