// Live settings: parsed through the core's parseSettings, invalid values reported once, changes applied without a reload.
import * as vscode from 'vscode';
import { readScopedSettings, USER_ONLY_SETTINGS } from '../core/settings/settingScopes';
import { SETTINGS_SECTION, type SettingKey, type Settings } from '../core/settings/settings';
import type { Logger } from './logger';

const USER_ONLY: ReadonlySet<SettingKey> = new Set(USER_ONLY_SETTINGS);

export class Configuration implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Settings>();
  private readonly subscriptions: vscode.Disposable[];
  private readonly reported = new Set<string>();
  private current: Settings;
  private currentWarnings: string[] = [];

  /** Fires with the new settings after the user changed any of ours. */
  readonly onDidChangeSettings = this.changed.event;

  constructor(private readonly logger: Logger) {
    this.current = this.read();
    const reread = (): void => {
      this.current = this.read();
      this.changed.fire(this.current);
    };
    this.subscriptions = [
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SETTINGS_SECTION)) reread();
      }),
      // A restricted setting's workspace value applies from the moment the person trusts the folder.
      vscode.workspace.onDidGrantWorkspaceTrust(reread),
    ];
  }

  get settings(): Settings {
    return this.current;
  }

  /** Why the current values differ from what is set (one message per rejected or clamped value). */
  get warnings(): readonly string[] {
    return this.currentWarnings;
  }

  private read(): Settings {
    const section = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    // Only the person's own settings may choose where the conversation goes or what runs (settingScopes.ts).
    const { settings, warnings, ignored } = readScopedSettings({ value: (key) => section.get(key), scoped: (key) => section.inspect(key), trusted: vscode.workspace.isTrusted });
    for (const key of ignored) {
      warnings.push({
        key,
        message: USER_ONLY.has(key)
          ? vscode.l10n.t('{0} is set by this workspace and ignored: where your conversation, code and API key go, and what runs and how, can only be chosen in your user settings.', `${SETTINGS_SECTION}.${key}`)
          : vscode.l10n.t('{0} is set by this workspace and ignored until you trust it (Restricted Mode).', `${SETTINGS_SECTION}.${key}`),
      });
    }
    this.currentWarnings = warnings.map((warning) => warning.message);
    for (const warning of warnings) {
      this.logger.warn(warning.message);
      if (this.reported.has(warning.message)) continue;
      this.reported.add(warning.message);
      void vscode.window.showWarningMessage(warning.message, vscode.l10n.t('Open Settings')).then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', `${SETTINGS_SECTION}.${warning.key}`);
      });
    }
    return settings;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}
