// Hosts the "Context & Compaction" webview: one panel per window, validated messages, actions sent to the backend.

import * as vscode from 'vscode';
import { isParseError, parseWebviewMessage } from '../../shared/panelProtocol';
import type { HostMessage, WebviewMessage, WebviewMessageType } from '../../shared/panelProtocol';
import type { NoticeLevel } from '../../shared/panelViewModels';
import type { PanelBackend, PanelLogger } from './panelBackend';
import { panelHtml } from './panelHtml';
import { translatedPanelStrings } from './panelStrings';

export const PANEL_VIEW_TYPE = 'compactionAgent.compactionPanel';
/** The panel's tab title (English: "Context & Compaction"). */
export function panelTitle(): string {
  return vscode.l10n.t('Context & Compaction');
}

type Handlers = { [K in WebviewMessageType]: (message: Extract<WebviewMessage, { type: K }>) => Promise<void> };

export interface CompactionPanelOptions {
  extensionUri: vscode.Uri;
  backend: PanelBackend;
  logger: PanelLogger;
}

/** Owns at most one WebviewPanel; create one per window and call show() to reveal or create it. */
export class CompactionPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** Subscriptions that live as long as the WebviewPanel. */
  private panelDisposables: vscode.Disposable[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private readonly handlers: Handlers;

  constructor(private readonly options: CompactionPanelOptions) {
    const backend = options.backend;
    this.handlers = {
      ready: () => {
        this.ready = true;
        return this.postState();
      },
      pruneNow: () => backend.pruneNow(),
      compactNow: async (m) => void (await backend.compactNow(m.instructions)),
      handOff: (m) => backend.handOff(m.instructions),
      previewDrop: (m) => backend.previewDrop(m.target),
      confirmDrop: (m) => backend.confirmDrop(m.previewId),
      cancelDrop: (m) => backend.cancelDrop(m.previewId),
      applySummary: (m) => backend.apply(m.proposalId, m.summary, m.edited),
      regenerate: async (m) => void (await backend.regenerate(m.proposalId, m.instructions)),
      cancelProposal: (m) => backend.cancel(m.proposalId),
      restoreCompaction: async (m) => void (await backend.restore(m.compactionId)),
      restoreCheckpoint: async (m) => {
        await vscode.commands.executeCommand('compactionAgent.restoreCheckpoint', m.entryId);
      },
      openSession: async (m) => {
        await vscode.commands.executeCommand('compactionAgent.openSession', m.sessionId);
      },
      pin: (m) => backend.pin(m.entryId),
      unpin: (m) => backend.unpin(m.entryId),
      countTokens: async (m) => this.post({ type: 'tokenCount', requestId: m.requestId, tokens: await backend.countTokens(m.text) }),
      openSettings: async () => {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'compactionAgent');
      },
    };
    this.disposables.push(backend.onDidChangeState(() => void this.postState()));
  }

  get visible(): boolean {
    return this.panel?.visible ?? false;
  }

  /** Reveals the panel, creating it if it was closed. */
  show(column: vscode.ViewColumn = vscode.ViewColumn.Beside): void {
    if (this.panel) {
      this.panel.reveal(column);
      return;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, panelTitle(), column, {
      ...this.webviewOptions(),
      // The webview keeps its draft in setState and asks for the rest with the ready handshake.
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    this.attach(panel);
  }

  /** Takes over a panel VS Code restored after a window reload (see the serializer in extension.ts). */
  restore(panel: vscode.WebviewPanel): void {
    if (this.panel) {
      panel.dispose();
      return;
    }
    panel.webview.options = this.webviewOptions();
    this.attach(panel);
  }

  private webviewOptions(): vscode.WebviewOptions {
    return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.options.extensionUri, 'dist', 'media')] };
  }

  private attach(panel: vscode.WebviewPanel): void {
    const mediaRoot = vscode.Uri.joinPath(this.options.extensionUri, 'dist', 'media');
    this.panel = panel;
    this.ready = false;
    const webview = panel.webview;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'panel.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'panel.css')).toString(),
      codiconUri: webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'codicon.css')).toString(),
      strings: translatedPanelStrings(),
    });
    this.panelDisposables.push(
      webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      panel.onDidChangeViewState(() => {
        // A webview without retained context reloads when shown again and will send ready.
        if (!panel.visible) this.ready = false;
      }),
      panel.onDidDispose(() => this.releasePanel()),
    );
  }

  /** Validates, then dispatches; anything malformed is logged and dropped. Exported for tests through the class. */
  async receive(raw: unknown): Promise<void> {
    const message = parseWebviewMessage(raw);
    if (isParseError(message)) {
      this.options.logger.warn(`Compaction panel: rejected a webview message: ${message.error}`);
      return;
    }
    const handler = this.handlers[message.type] as (message: WebviewMessage) => Promise<void>;
    try {
      await handler(message);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.options.logger.error(`Compaction panel: ${message.type} failed: ${text}`);
      await this.notify('error', text);
    }
  }

  /** Shows a transient notice in the panel (announced by screen readers). */
  async notify(level: NoticeLevel, text: string): Promise<void> {
    await this.post({ type: 'notice', notice: { level, text } });
  }

  private async postState(): Promise<void> {
    if (!this.panel || !this.ready) return;
    await this.post({ type: 'state', state: this.options.backend.getState() });
  }

  private async post(message: HostMessage): Promise<void> {
    if (!this.panel) return;
    await this.panel.webview.postMessage(message);
  }

  private releasePanel(): void {
    for (const disposable of this.panelDisposables) disposable.dispose();
    this.panelDisposables = [];
    this.panel = undefined;
    this.ready = false;
  }

  dispose(): void {
    const panel = this.panel;
    this.releasePanel();
    panel?.dispose();
    for (const disposable of this.disposables) disposable.dispose();
    this.disposables.length = 0;
  }
}
