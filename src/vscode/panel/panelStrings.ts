// The panel webview's strings translated with vscode.l10n (the bundle in l10n/), for the page the host builds.
import * as vscode from 'vscode';
import { PANEL_STRINGS, panelStringKeys } from '../../shared/panelStrings';
import type { PanelStrings } from '../../shared/panelStrings';

/** Each English panel string through vscode.l10n.t; untranslated ones stay English. */
export function translatedPanelStrings(): PanelStrings {
  return Object.fromEntries(panelStringKeys().map((key) => [key, vscode.l10n.t(PANEL_STRINGS[key])])) as PanelStrings;
}
