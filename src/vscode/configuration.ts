// Live settings: parsed through the core's parseSettings, invalid values reported once, changes applied without a reload.
import * as vscode from 'vscode';
import { parseSettings, SETTINGS_SECTION, USER_ONLY_SETTINGS, type SettingKey, type Settings } from '../core/settings/settings';
import type { Logger } from './logger';

const USER_ONLY: ReadonlySet<SettingKey> = new Set(USER_ONLY_SETTINGS);

export class Configuration implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Settings>();
  private readonly subscription: vscode.Disposable;
  private readonly reported = new Set<string>();
  private current: Settings;
  private currentWarnings: string[] = [];

  /** Fires with the new settings after the user changed any of ours. */
  readonly onDidChangeSettings = this.changed.event;

  constructor(private readonly logger: Logger) {
    this.current = this.read();
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(SETTINGS_SECTION)) return;
      this.current = this.read();
      this.changed.fire(this.current);
    });
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
    const ignored: string[] = [];
    const { settings, warnings } = parseSettings((key: SettingKey) => {
      if (!USER_ONLY.has(key)) return section.get(key);
      // Only the person's own settings may choose the endpoint, its headers, or what runs without asking.
      const values = section.inspect(key);
      if (values?.workspaceValue !== undefined || values?.workspaceFolderValue !== undefined) ignored.push(key);
      return values?.globalValue;
    });
    for (const key of ignored) {
      warnings.push({
        key,
        message: vscode.l10n.t('{0} is set by this workspace and ignored: where your code and API key go, and what runs without asking, can only be chosen in your user settings.', `${SETTINGS_SECTION}.${key}`),
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
    this.subscription.dispose();
    this.changed.dispose();
  }
}
