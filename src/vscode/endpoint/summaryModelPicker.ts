// "Choose Summary Model…": any model of the endpoint or any model VS Code offers, written to compaction.summaryModel.
import * as vscode from 'vscode';
import type { Configuration } from '../configuration';
import type { EndpointConnection } from './endpointConnection';
import { SETUP_MODEL_ID, VENDOR } from './endpointModelProvider';
import { VSCODE_MODEL_PREFIX } from '../../core/settings/summaryModelRef';
import { formatCount } from '../../shared/budgetFormat';

interface SummaryModelItem extends vscode.QuickPickItem {
  value?: string;
}

async function endpointItems(endpoint: EndpointConnection, current: string): Promise<SummaryModelItem[]> {
  if (!endpoint.configured) return [];
  const models = await endpoint.listModels().catch(() => []);
  return models.map((model) => ({ label: `${model.id === current ? '$(check) ' : ''}${model.id}`, description: vscode.l10n.t('endpoint'), value: model.id }));
}

async function vscodeItems(current: string): Promise<SummaryModelItem[]> {
  const models = await vscode.lm.selectChatModels();
  return models
    .filter((model) => model.vendor !== VENDOR && model.id !== SETUP_MODEL_ID)
    .map((model) => {
      const value = `${VSCODE_MODEL_PREFIX}${model.vendor}/${model.id}`;
      return { label: `${value === current ? '$(check) ' : ''}${model.name}`, description: vscode.l10n.t('{0} · {1} input tokens', model.vendor, formatCount(model.maxInputTokens, vscode.env.language)), detail: vscode.l10n.t('Each summary is one request to this VS Code model (with Copilot, possibly a premium request)'), value };
    });
}

/** Shows the choice and writes the setting (user settings); resolves with what was chosen, or undefined. */
export async function chooseSummaryModel(endpoint: EndpointConnection, configuration: Configuration): Promise<string | undefined> {
  const current = configuration.settings.compaction.summaryModel;
  const [ours, theirs] = await Promise.all([endpointItems(endpoint, current), vscodeItems(current)]);
  const items: SummaryModelItem[] = [
    { label: `${current === '' ? '$(check) ' : ''}${vscode.l10n.t("Same as the chat's model")}`, description: vscode.l10n.t('default'), value: '' },
    ...(ours.length > 0 ? [{ label: vscode.l10n.t('Endpoint models'), kind: vscode.QuickPickItemKind.Separator }, ...ours] : []),
    ...(theirs.length > 0 ? [{ label: vscode.l10n.t('Models VS Code offers'), kind: vscode.QuickPickItemKind.Separator }, ...theirs] : []),
  ];
  const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Choose Summary Model'), placeHolder: vscode.l10n.t('Which model writes compaction summaries? A smaller, cheaper model is usually enough.'), matchOnDescription: true });
  if (picked?.value === undefined) return undefined;
  await vscode.workspace.getConfiguration('compactionAgent').update('compaction.summaryModel', picked.value, vscode.ConfigurationTarget.Global);
  return picked.value;
}
