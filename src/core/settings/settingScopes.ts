// Who may set each setting: the person only (where text goes, what runs), or also a workspace; and the one reader that enforces it.
import { parseSettings, type ParsedSettings, type SettingKey } from './settings';

/**
 * Settings a cloned repository must not control: where the conversation, the code and the API key are sent (the
 * endpoint, the model that writes summaries, images, VS Code's and MCP tools), and what runs and how (confirmations,
 * the terminal, sub-tasks, the snapshot store). Declared with application scope, and read from user settings only:
 * a workspace value is ignored with a warning, whatever the trust.
 */
export const USER_ONLY_SETTINGS: readonly SettingKey[] = [
  'endpoint.baseUrl',
  'endpoint.model',
  'endpoint.headers',
  'endpoint.flavor',
  'endpoint.maxTokensParameter',
  'endpoint.systemRole',
  'endpoint.timeoutSeconds',
  'endpoint.maxRetries',
  'endpoint.imageInput',
  'compaction.summaryModel',
  'tools.requireConfirmation',
  'tools.includeVsCodeTools',
  'tools.runCommandsInTerminal',
  'tools.snapshotStoreMaxMegabytes',
  'tools.delegateMaxPerReply',
  'tools.delegateMaxPerRequest',
];

/**
 * Settings a workspace may set once it is trusted, never in Restricted Mode: words added to every summary request.
 * Listed in the manifest's `capabilities.untrustedWorkspaces.restrictedConfigurations` (VS Code then ignores an
 * untrusted workspace's value) and read the same way here.
 */
export const RESTRICTED_SETTINGS: readonly SettingKey[] = ['compaction.customInstructions'];

/** A setting's values per scope, as VS Code's `inspect` gives them. */
export interface ScopedValues {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export interface SettingSource {
  /** The value in effect (VS Code's `get`). */
  value(key: SettingKey): unknown;
  /** The values per scope (VS Code's `inspect`). */
  scoped(key: SettingKey): ScopedValues | undefined;
  /** Whether the person trusts the workspace (Restricted Mode when false). */
  trusted: boolean;
}

export interface ScopedSettings extends ParsedSettings {
  /** Settings a workspace set and that were ignored (user-only ones always, restricted ones while untrusted). */
  ignored: SettingKey[];
}

const USER_ONLY: ReadonlySet<SettingKey> = new Set(USER_ONLY_SETTINGS);
const RESTRICTED: ReadonlySet<SettingKey> = new Set(RESTRICTED_SETTINGS);

/**
 * The settings as the extension uses them: a user-only setting is read from the user's settings alone (its
 * application scope already keeps VS Code from applying a workspace value; this holds whatever VS Code does), a
 * restricted one too while the workspace is untrusted, every other one as VS Code resolves it.
 */
export function readScopedSettings(source: SettingSource): ScopedSettings {
  const ignored: SettingKey[] = [];
  const parsed = parseSettings((key) => {
    if (!USER_ONLY.has(key) && !(RESTRICTED.has(key) && !source.trusted)) return source.value(key);
    const values = source.scoped(key);
    if (values?.workspaceValue !== undefined || values?.workspaceFolderValue !== undefined) ignored.push(key);
    return values?.globalValue;
  });
  return { ...parsed, ignored };
}
