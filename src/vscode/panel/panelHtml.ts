// The compaction panel's HTML shell: a strict Content Security Policy with a per-load nonce, no remote resources.

import { randomBytes } from 'node:crypto';
import { PANEL_STRINGS, PANEL_STRINGS_ATTRIBUTE } from '../../shared/panelStrings';
import type { PanelStrings } from '../../shared/panelStrings';

export interface PanelHtmlInputs {
  /** webview.cspSource */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  /** dist/media/codicon.css (copied there by media/copyAssets.mjs). */
  codiconUri: string;
  /** Fresh for every load; tests may pass a fixed one. */
  nonce?: string;
  /** The webview's text, translated by the host (vscode.l10n); English when absent. */
  strings?: PanelStrings;
}

export function createNonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The whole document; the webview script renders everything else from the state it is sent. */
export function panelHtml(inputs: PanelHtmlInputs): string {
  const nonce = inputs.nonce ?? createNonce();
  const csp = escapeAttribute(contentSecurityPolicy(inputs.cspSource, nonce));
  const strings = inputs.strings ?? PANEL_STRINGS;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttribute(inputs.codiconUri)}">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttribute(inputs.styleUri)}">
<title>${escapeAttribute(strings.pageTitle)}</title>
</head>
<body>
<main id="app" aria-label="${escapeAttribute(strings.pageLabel)}" ${PANEL_STRINGS_ATTRIBUTE}="${escapeAttribute(JSON.stringify(strings))}"></main>
<script nonce="${nonce}" src="${escapeAttribute(inputs.scriptUri)}"></script>
</body>
</html>`;
}
