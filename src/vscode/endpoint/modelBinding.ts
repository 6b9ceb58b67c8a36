// Chooses how to talk to the chat's model: our endpoint's client (full usage reports) or VS Code's sendRequest.
import * as vscode from 'vscode';
import { resolveContextWindow, windowIsKnown, type ContextWindowSource, type ResolvedWindow } from '../../core/llm/contextWindow';
import { windowSettingFor } from '../../core/settings/settings';
import { VSCODE_MODEL_PREFIX, vscodeModelRef } from '../../core/settings/summaryModelRef';
import { thresholdsFor } from '../../core/budget/thresholds';
import type { DoneEvent, ModelStream } from '../../core/llm/modelStream';
import type { DiscoveredWindow } from '../../core/llm/serverWindowFacts';
import type { Configuration } from '../configuration';
import type { EndpointConnection } from './endpointConnection';
import { SETUP_MODEL_ID, VENDOR } from './endpointModelProvider';
import { LanguageModelStream } from './languageModelStream';
import { resolveWindowWithMemory, type LearnedHow } from './windowMemory';

/** The model a session is measured with, its window and where that window came from. */
export interface ModelChoice {
  id: string;
  contextWindow: number;
  windowSource: ContextWindowSource;
  /** Where exactly the window came from, when the source knows more (e.g. "Ollama /api/show num_ctx"). */
  windowDetail?: string;
}

export interface BoundModel {
  choice: ModelChoice;
  stream: ModelStream;
  /** The summarizing model (the compaction.summaryModel setting, else the chat's model). */
  summaryStream: ModelStream;
  summaryWindow: number;
  /** True when the model is our endpoint's (usage is reported, counts calibrate). */
  ours: boolean;
  /** Remembers a window an overflow error named or a truncated prompt showed, for this endpoint and model across sessions. */
  rememberWindow: (tokens: number, how?: LearnedHow) => void;
  /** The server drops the oldest messages of a prompt longer than its window (Ollama): its usage reports are checked for that. */
  serverTruncates: boolean;
  /** How to raise this server's window, said when it truncated a prompt. */
  raiseWindowHint: string;
  /** Why the configured summary model is not the one used, when it is not. */
  summaryNote?: string;
  /** Set while the window is unknown: asked after the first reply of a request, the window that reply showed. */
  windowAfterReply?: (done: DoneEvent) => Promise<DiscoveredWindow | undefined>;
}

/** A model the session last used, kept so palette commands can summarize with it outside a chat request. */
export interface ModelRef {
  vendor: string;
  id: string;
}

export async function bindModel(model: vscode.LanguageModelChat, endpoint: EndpointConnection, configuration: Configuration): Promise<BoundModel> {
  const settings = configuration.settings;
  if (model.vendor === VENDOR) {
    const listed = await endpoint.listedModel(model.id);
    const inputs = { setting: windowSettingFor(settings, model.id), ...(await endpoint.windowInputs(listed)) };
    const { window, remember } = resolveWindowWithMemory(endpoint.windows, endpoint.windowKey, model.id, inputs);
    // A window only the first reply can tell (the model a deployment runs, a model the server loads on that request),
    // or one read before the server loaded the model, which loading may lower: asked again after that reply.
    const known = windowIsKnown(window.source);
    const askAfterReply = !known || window.readBeforeLoad === true;
    const afterReply = askAfterReply ? { windowAfterReply: (done: DoneEvent) => windowShownByReply(endpoint, model.id, done, known ? window.tokens : undefined) } : {};
    const choice = modelChoice(model.id, window);
    const stream = await endpoint.client(model.id);
    const summary = await summaryModel(endpoint, configuration, stream, window.tokens);
    return {
      choice,
      stream,
      summaryStream: summary.stream,
      summaryWindow: summary.window,
      ours: true,
      rememberWindow: remember,
      ...afterReply,
      ...endpoint.windowBehaviour,
      ...(summary.note ? { summaryNote: summary.note } : {}),
    };
  }
  // VS Code reports the input limit; the whole window is that plus the reply reserve, so the usable part is the limit.
  const reserve = settings.compaction.reserveTokens > 0 ? settings.compaction.reserveTokens : thresholdsFor(model.maxInputTokens, settings).outputReserve;
  const vendorKey = `vscode-lm:${model.vendor}`;
  const { window, remember } = resolveWindowWithMemory(endpoint.windows, vendorKey, model.id, {
    setting: windowSettingFor(settings, model.id),
    learned: endpoint.windows.fact(vendorKey, model.id) ?? null,
    modelMetadata: model.maxInputTokens > 0 ? { contextWindow: model.maxInputTokens + reserve, detail: vscode.l10n.t("from VS Code's maxInputTokens") } : undefined,
  });
  const stream = new LanguageModelStream(model);
  const summary = await summaryModel(endpoint, configuration, stream, window.tokens);
  return {
    choice: modelChoice(model.id, window),
    stream,
    summaryStream: summary.stream,
    summaryWindow: summary.window,
    ours: false,
    rememberWindow: remember,
    // VS Code's models refuse what does not fit; the provider decides, so no hint beyond a larger model.
    serverTruncates: false,
    raiseWindowHint: 'pick a model with a larger window',
    ...(summary.note ? { summaryNote: summary.note } : {}),
  };
}

/** What the first reply showed: any window while it was unknown, else only a smaller one than was read before loading. */
async function windowShownByReply(endpoint: EndpointConnection, model: string, done: DoneEvent, readBefore: number | undefined): Promise<DiscoveredWindow | undefined> {
  const found = await endpoint.windowAfterReply(model, done);
  return found && (readBefore === undefined || found.tokens < readBefore) ? found : undefined;
}

function modelChoice(id: string, window: ResolvedWindow): ModelChoice {
  return { id, contextWindow: window.tokens, windowSource: window.source, ...(window.detail ? { windowDetail: window.detail } : {}) };
}

interface SummaryModel {
  stream: ModelStream;
  window: number;
  /** Set when the configured summary model could not be used, saying so (shown in the reply). */
  note?: string;
}

async function summaryModel(endpoint: EndpointConnection, configuration: Configuration, fallback: ModelStream, fallbackWindow: number): Promise<SummaryModel> {
  const id = configuration.settings.compaction.summaryModel;
  if (!id) return { stream: fallback, window: fallbackWindow };
  if (id.startsWith(VSCODE_MODEL_PREFIX)) {
    const ref = vscodeModelRef(id);
    const model = ref ? await findModel(ref) : undefined;
    if (!model) return { stream: fallback, window: fallbackWindow, note: vscode.l10n.t("The summary model {0} is not available in VS Code; summaries use the chat's model (compactionAgent.compaction.summaryModel).", id) };
    return { stream: new LanguageModelStream(model), window: model.maxInputTokens > 0 ? model.maxInputTokens : fallbackWindow };
  }
  if (!endpoint.configured) return { stream: fallback, window: fallbackWindow, note: vscode.l10n.t("The summary model {0} is an endpoint model, but no endpoint is configured; summaries use the chat's model.", id) };
  const listed = await endpoint.listedModel(id);
  const window = resolveContextWindow(await endpoint.windowInputs(listed));
  return { stream: await endpoint.client(id), window: windowIsKnown(window.source) ? window.tokens : fallbackWindow };
}

/** Finds a model again by vendor and id (for commands run from the palette), or undefined when it is gone. */
export async function findModel(ref: ModelRef): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels({ vendor: ref.vendor, id: ref.id });
  return models[0];
}

/** The model for work outside a chat request: the last one chatted with, else the endpoint's first model. */
export async function modelForCommands(lastModel: ModelRef | undefined): Promise<vscode.LanguageModelChat> {
  const remembered = lastModel ? await findModel(lastModel) : undefined;
  if (remembered) return remembered;
  const ours = await vscode.lm.selectChatModels({ vendor: VENDOR });
  const usable = ours.find((model) => model.id !== SETUP_MODEL_ID);
  if (usable) return usable;
  throw new Error(vscode.l10n.t('No language model to summarize with: configure an endpoint (Compaction Agent: Set Up Endpoint) or send a message to @agent with a model chosen in the Chat view.'));
}
