// Guided endpoint setup: server kind → URL → API key → the server's models (a connection test) → user settings.
import * as vscode from 'vscode';
import { resolveContextWindow } from '../../core/llm/contextWindow';
import type { ModelInfo } from '../../core/llm/modelList';
import { ModelCallError } from '../../core/llm/openaiChatClient';
import { SETTINGS_SECTION } from '../../core/settings/settings';
import {
  checkBaseUrl,
  kindOfEndpoint,
  listingFailureMessage,
  normalizeBaseUrl,
  sameOrigin,
  SERVER_KINDS,
  serverKind,
  type ServerKind,
} from '../../core/llm/serverKinds';
import { formatTokens } from '../../shared/budgetFormat';
import type { ApiKeyStore } from './apiKeyStore';
import type { Configuration } from '../configuration';
import type { EndpointConnection } from './endpointConnection';

export const SET_UP_COMMAND = 'compactionAgent.setUp';

export interface SetupDeps {
  configuration: Configuration;
  keys: ApiKeyStore;
  endpoint: EndpointConnection;
}

/** The title of each step, e.g. "Compaction Agent: Set Up Endpoint (2/4)". */
function stepTitle(step: number): string {
  return vscode.l10n.t('Compaction Agent: Set Up Endpoint ({0}/4)', step);
}

interface KindItem extends vscode.QuickPickItem {
  server: ServerKind;
}

async function pickKind(current: ServerKind['id']): Promise<ServerKind | undefined> {
  const items = SERVER_KINDS.map((kind): KindItem => ({
    label: kind.label,
    description: kind.defaultUrl || vscode.l10n.t('any OpenAI-compatible URL'),
    detail: kind.apiKey === 'required' ? vscode.l10n.t('needs an API key') : vscode.l10n.t('API key optional'),
    server: kind,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: stepTitle(1),
    placeHolder: vscode.l10n.t('Which server? (current: {0})', serverKind(current).label),
    ignoreFocusOut: true,
  });
  return picked?.server;
}

async function askUrl(kind: ServerKind, value: string): Promise<string | undefined> {
  const start = kind.placeholder ? value.indexOf(kind.placeholder) : -1;
  const typed = await vscode.window.showInputBox({
    title: stepTitle(2),
    prompt: vscode.l10n.t('Base URL of the {0} server (OpenAI-compatible, usually ending in /v1)', kind.label),
    value,
    ...(start >= 0 && kind.placeholder ? { valueSelection: [start, start + kind.placeholder.length] as [number, number] } : {}),
    ignoreFocusOut: true,
    validateInput: (text) => checkBaseUrl(text, kind),
  });
  return typed === undefined ? undefined : normalizeBaseUrl(typed);
}

/** `{ key: undefined }` means no key; undefined means cancelled. A stored key is offered only for the same server. */
async function askKey(kind: ServerKind, stored: string | undefined): Promise<{ key: string | undefined } | undefined> {
  const required = kind.apiKey === 'required';
  const prompt = required
    ? vscode.l10n.t("API key for {0}. It is kept in VS Code's secret storage, never in settings.", kind.label)
    : vscode.l10n.t('API key, only if the server was started with one (leave empty for none). Kept in secret storage.');
  const typed = await vscode.window.showInputBox({
    title: stepTitle(3),
    prompt,
    password: true,
    ignoreFocusOut: true,
    ...(stored ? { placeHolder: vscode.l10n.t('Leave empty to keep the stored key') } : {}),
    validateInput: (text) => {
      if (/\s/.test(text)) return vscode.l10n.t('The key must not contain spaces.');
      if (required && text === '' && !stored) return vscode.l10n.t('{0} needs an API key.', kind.label);
      return undefined;
    },
  });
  if (typed === undefined) return undefined;
  return { key: typed || stored };
}

/** The chosen model ('' = every listed model), why the listing failed, or undefined when cancelled. */
type ModelChoice = { model: string; info?: ModelInfo } | { error: string } | undefined;

interface ModelItem extends vscode.QuickPickItem {
  model?: string;
  manual?: boolean;
}

function modelItems(models: readonly ModelInfo[], kind: ServerKind): ModelItem[] {
  const listed = models.map((model): ModelItem => ({
    label: model.id,
    ...(model.contextWindow ? { description: vscode.l10n.t('{0} window', formatTokens(model.contextWindow)) } : {}),
    model: model.id,
  }));
  const all: ModelItem[] = models.length > 1 ? [{ label: `$(list-flat) ${vscode.l10n.t('All {0} models', models.length)}`, description: vscode.l10n.t("offer every listed model in the chat's model picker"), model: '' }] : [];
  const manual: ModelItem = kind.deployments
    ? { label: `$(edit) ${vscode.l10n.t('Enter a deployment name…')}`, description: vscode.l10n.t('requests name your deployment, not the model'), manual: true }
    : { label: `$(edit) ${vscode.l10n.t('Enter a model id…')}`, manual: true };
  // Where requests name deployments, typing the name is the usual way: it comes first.
  return kind.deployments ? [manual, ...listed] : [...listed, ...all, manual];
}

/**
 * Lists the models inside the model picker itself (busy while it waits), so a wrong URL is reported where the
 * person is looking.
 */
function pickModel(deps: SetupDeps, kind: ServerKind, baseUrl: string, key: string | undefined, current: string): Promise<ModelChoice> {
  const abort = new AbortController();
  const pick = vscode.window.createQuickPick<ModelItem>();
  pick.title = stepTitle(4);
  pick.placeholder = vscode.l10n.t('Listing the models at {0}…', baseUrl);
  pick.busy = true;
  pick.enabled = false;
  pick.ignoreFocusOut = true;
  let models: ModelInfo[] = [];
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: ModelChoice): void => {
      if (settled) return;
      settled = true;
      abort.abort();
      pick.dispose();
      resolve(value);
    };
    pick.onDidHide(() => finish(undefined));
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      if (!item) return;
      if (item.manual) {
        settled = true;
        abort.abort();
        pick.dispose();
        void askModelId(current, kind).then((model) => {
          const info = models.find((listed) => listed.id === model);
          resolve(model === undefined ? undefined : { model, ...(info ? { info } : {}) });
        });
        return;
      }
      const info = models.find((model) => model.id === item.model);
      finish({ model: item.model ?? '', ...(info ? { info } : {}) });
    });
    pick.show();
    deps.endpoint.listModelsAt({ baseUrl, apiKey: key, flavor: kind.flavor }, abort.signal).then(
      (listed) => {
        if (settled) return;
        models = listed;
        pick.items = modelItems(listed, kind);
        const preselected = pick.items.find((item) => item.model === current && current !== '');
        if (preselected) pick.activeItems = [preselected];
        pick.placeholder = kind.deployments
          ? vscode.l10n.t('Connected to {0}. Its list names models, requests name deployments: enter your deployment name (its model is read from the deployment, or from the first reply)', baseUrl)
          : listed.length > 0
          ? vscode.l10n.t('Connected: {0} model(s) at {1}. Pick the one @agent uses', listed.length, baseUrl)
          : vscode.l10n.t('{0} answered but lists no models: enter the model id (or Escape and check the path, usually ending in /v1)', baseUrl);
        pick.busy = false;
        pick.enabled = true;
      },
      (error: unknown) => {
        if (settled) return;
        const message = error instanceof ModelCallError ? listingFailureMessage(kind, baseUrl, error.modelError) : vscode.l10n.t('Listing the models at {0} failed. ({1})', baseUrl, String(error));
        finish({ error: message });
      },
    );
  });
}

async function askModelId(current: string, kind: ServerKind): Promise<string | undefined> {
  const typed = await vscode.window.showInputBox({
    title: stepTitle(4),
    prompt: kind.deployments
      ? vscode.l10n.t('Deployment name, as you named it in the Azure portal (e.g. my-gpt-4o)')
      : vscode.l10n.t('Model id as the server names it (e.g. gpt-4.1, llama3.1:8b)'),
    value: current,
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() === '' ? vscode.l10n.t('Enter a model id.') : undefined),
  });
  return typed?.trim();
}

/**
 * The old key is removed before the URL changes and the new one stored after it: a listing triggered in between
 * must never send one server's key to the other.
 */
async function save(deps: SetupDeps, kind: ServerKind, baseUrl: string, key: string | undefined, model: string): Promise<void> {
  const stored = await deps.keys.get();
  if (key !== stored) await deps.keys.clear();
  // Endpoint settings are application-scoped: only the user settings may hold them.
  const section = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  await section.update('endpoint.baseUrl', baseUrl, vscode.ConfigurationTarget.Global);
  await section.update('endpoint.model', model, vscode.ConfigurationTarget.Global);
  await section.update('endpoint.flavor', kind.flavor, vscode.ConfigurationTarget.Global);
  if (key && key !== stored) await deps.keys.set(key);
}

function windowNote(deps: SetupDeps, info: ModelInfo | undefined): string {
  const window = resolveContextWindow({ setting: deps.configuration.settings.context.windowTokens, endpointList: info?.contextWindow });
  switch (window.source) {
    case 'setting':
      return vscode.l10n.t('Context window: {0} tokens, from compactionAgent.context.windowTokens.', formatTokens(window.tokens));
    case 'endpoint':
      return vscode.l10n.t("Context window: {0} tokens, as the server's model list reports.", formatTokens(window.tokens));
    default:
      return vscode.l10n.t('The server does not report the context window: {0} is assumed until a request shows the real size; set compactionAgent.context.windowTokens if you know it.', formatTokens(window.tokens));
  }
}

/** Not awaited: the command is done once the settings are written, whatever the person does with the message. */
function announce(deps: SetupDeps, baseUrl: string, model: string, info: ModelInfo | undefined): void {
  const host = new URL(baseUrl).host;
  const what = model === '' ? vscode.l10n.t('every model of {0}', host) : vscode.l10n.t('{0} on {1}', model, host);
  const note = model === '' ? vscode.l10n.t("Pick one of its models in the Chat view's model picker.") : windowNote(deps, info);
  const ask = vscode.l10n.t('Ask @agent');
  const setWindow = vscode.l10n.t('Set Window');
  const actions = [ask, ...(model !== '' && !info?.contextWindow && !deps.configuration.settings.context.windowTokens ? [setWindow] : [])];
  void vscode.window.showInformationMessage(vscode.l10n.t('Compaction Agent is set up: {0}. {1}', what, note), ...actions).then((choice) => {
    if (choice === ask) void vscode.commands.executeCommand('workbench.action.chat.open', { query: '@agent ', isPartialQuery: true });
    if (choice === setWindow) void vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.context.windowTokens`);
  });
}

/** The whole flow; every step can be cancelled with Escape, and nothing is saved before the server answered. */
export async function runEndpointSetup(deps: SetupDeps): Promise<void> {
  const saved = deps.configuration.settings.endpoint;
  const storedKey = await deps.keys.get();
  const currentKind = kindOfEndpoint(saved.baseUrl, saved.flavor);
  const kind = await pickKind(currentKind);
  if (!kind) return;
  let baseUrl = kind.id === currentKind && saved.baseUrl ? saved.baseUrl : kind.defaultUrl;
  let key: string | undefined;
  let step: 'url' | 'key' | 'models' = 'url';
  for (;;) {
    if (step === 'url') {
      const typed = await askUrl(kind, baseUrl);
      if (typed === undefined) return;
      baseUrl = typed;
      step = 'key';
    }
    if (step === 'key') {
      // A key saved for another server is never sent to this one.
      const answer = await askKey(kind, sameOrigin(baseUrl, saved.baseUrl) ? storedKey : undefined);
      if (!answer) return;
      key = answer.key;
      step = 'models';
    }
    const result = await pickModel(deps, kind, baseUrl, key, sameOrigin(baseUrl, saved.baseUrl) ? saved.model : '');
    if (!result) return;
    if ('model' in result) {
      await save(deps, kind, baseUrl, key, result.model);
      announce(deps, baseUrl, result.model, result.info);
      return;
    }
    if (!('error' in result)) return;
    const editUrl = vscode.l10n.t('Edit URL');
    const editKey = vscode.l10n.t('Edit API Key');
    const choice = await vscode.window.showErrorMessage(result.error, { modal: true }, vscode.l10n.t('Retry'), editUrl, editKey);
    if (choice === undefined) return;
    if (choice === editUrl) step = 'url';
    if (choice === editKey) step = 'key';
  }
}
