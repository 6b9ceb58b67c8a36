// The endpoint's API key, kept only in VS Code's SecretStorage (never in settings, logs or session files).
import * as vscode from 'vscode';

const SECRET_NAME = 'compactionAgent.endpoint.apiKey';

export class ApiKeyStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscription: vscode.Disposable;

  /** Fires when the key was set or cleared (in this window or another). */
  readonly onDidChangeApiKey = this.changed.event;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((event) => {
      if (event.key === SECRET_NAME) this.changed.fire();
    });
  }

  async get(): Promise<string | undefined> {
    return (await this.secrets.get(SECRET_NAME)) || undefined;
  }

  async set(key: string): Promise<void> {
    await this.secrets.store(SECRET_NAME, key);
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_NAME);
  }

  /** Asks for the key in a password box; returns false when the user cancelled. */
  async prompt(): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: vscode.l10n.t('Compaction Agent: API Key'),
      prompt: vscode.l10n.t('API key for the OpenAI-compatible endpoint. It is stored in VS Code\'s secret storage, never in settings.'),
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() !== value || /\s/.test(value) ? vscode.l10n.t('The key must not contain spaces.') : undefined),
    });
    if (key === undefined) return false;
    if (key === '') await this.clear();
    else await this.set(key);
    return true;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
