// Every setting of the extension: its default and bounds, and one pure parser that validates raw values.
import type { ImageInputMode } from '../context/userImages';
import { parseValue, SETTINGS_SECTION, type RawValue, type SettingSpec, type SettingWarning } from './settingValues';

export { SETTINGS_SECTION, type SettingSpec, type SettingWarning } from './settingValues';

export type ReviewMode = 'always' | 'manual' | 'never';
export type EndpointFlavor =
  | 'auto'
  | 'openai'
  | 'azure'
  | 'openrouter'
  | 'together'
  | 'groq'
  | 'mistral'
  | 'vllm'
  | 'sglang'
  | 'llamacpp'
  | 'lmstudio'
  | 'ollama'
  | 'litellm'
  | 'tgi'
  | 'koboldcpp'
  | 'localai'
  | 'textgen';
export type MaxTokensParameter = 'auto' | 'max_tokens' | 'max_completion_tokens';
export type SystemRole = 'auto' | 'system' | 'developer';

export interface Settings {
  endpoint: {
    baseUrl: string;
    model: string;
    headers: Record<string, string>;
    flavor: EndpointFlavor;
    maxTokensParameter: MaxTokensParameter;
    systemRole: SystemRole;
    timeoutSeconds: number;
    maxRetries: number;
    /** Whether images attached in the chat are sent to the endpoint's models ("auto": by the model id). */
    imageInput: ImageInputMode;
  };
  context: {
    /** 0 = from the model's metadata, else the endpoint's model list, else 128k. */
    windowTokens: number;
    /** 0 = as much as fits, at most 16384 (budget/meter.ts). */
    maxOutputTokens: number;
    /** The window per model id, over everything else (windowTokens included). */
    windowOverrides: Record<string, number>;
  };
  compaction: {
    auto: boolean;
    review: ReviewMode;
    /** Compact once the prompt fills this share of the usable budget; 0 = only when it would overflow. */
    triggerPercent: number;
    /**
     * The provider's prompt-cache lifetime in seconds: when the last model call is older, the next one is uncached
     * anyway, so compaction may start earlier at no cache cost (budget.ts COLD_CACHE_COMPACT_PERCENT). 0 = off.
     */
    cacheLifetimeSeconds: number;
    /** 0 = a share of the window (budget/thresholds.ts), as for every size below that says so. */
    reserveTokens: number;
    /** 0 = scales with the window. */
    keepRecentTokens: number;
    /** Most tokens a summary may take, asked of the summarizing model; 0 = 10 % of the window (1024–13107). */
    summaryTokens: number;
    /** Empty = the chat's model. */
    summaryModel: string;
    /** Standing instructions for every summary, before any given with /compact. */
    customInstructions: string;
  };
  pruning: {
    enabled: boolean;
    /** 0 = scales with the window. */
    protectTokens: number;
    /** 0 = scales with the window. */
    minimumTokens: number;
    protectTurns: number;
    protectedTools: string[];
  };
  tools: {
    /** 0 = scales with the window. */
    outputMaxChars: number;
    outputMaxLines: number;
    commandTimeoutSeconds: number;
    /** Ask before the agent writes a file or runs a command. */
    requireConfirmation: boolean;
    /** Offer VS Code's tools (vscode.lm.tools, MCP servers included) next to the built-in ones. */
    includeVsCodeTools: boolean;
    /** Run run_command in a visible "@agent" terminal (shell integration) instead of a hidden process. */
    runCommandsInTerminal: boolean;
    /** Largest file content (bytes) kept as a checkpoint snapshot; larger files are changed without one. */
    snapshotMaxBytes: number;
    /** Most the blob store may hold (MB) for command snapshots to be taken; above it a command runs without one (and says so). */
    snapshotStoreMaxMegabytes: number;
    /** Most `delegate` calls one reply of the model may make; the others get a note instead of a sub-task. */
    delegateMaxPerReply: number;
    /** Most `delegate` calls one request may make, over all its replies. */
    delegateMaxPerRequest: number;
  };
  statusBar: {
    warningPercent: number;
    errorPercent: number;
  };
}

/** The window setting for one model: its entry in context.windowOverrides, else context.windowTokens (0 = discover). */
export function windowSettingFor(settings: Settings, modelId: string): number {
  return Object.hasOwn(settings.context.windowOverrides, modelId) ? (settings.context.windowOverrides[modelId] ?? 0) : settings.context.windowTokens;
}

/** The single source of truth for keys, defaults and bounds; package.json is tested against it. */
export const SETTING_SPECS = {
  'endpoint.baseUrl': { kind: 'string', default: '' },
  'endpoint.model': { kind: 'string', default: '' },
  'endpoint.headers': { kind: 'stringMap', default: {} },
  'endpoint.flavor': {
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'openai', 'azure', 'openrouter', 'together', 'groq', 'mistral', 'vllm', 'sglang', 'llamacpp', 'lmstudio', 'ollama', 'litellm', 'tgi', 'koboldcpp', 'localai', 'textgen'],
  },
  'endpoint.maxTokensParameter': { kind: 'enum', default: 'auto', values: ['auto', 'max_tokens', 'max_completion_tokens'] },
  'endpoint.systemRole': { kind: 'enum', default: 'auto', values: ['auto', 'system', 'developer'] },
  'endpoint.imageInput': { kind: 'enum', default: 'auto', values: ['auto', 'always', 'never'] },
  'endpoint.timeoutSeconds': { kind: 'number', default: 120, minimum: 5, maximum: 3600 },
  'endpoint.maxRetries': { kind: 'number', default: 3, minimum: 0, maximum: 10 },
  'context.windowTokens': { kind: 'number', default: 0, minimum: 0, maximum: 10_000_000 },
  'context.maxOutputTokens': { kind: 'number', default: 0, minimum: 0, maximum: 1_000_000 },
  'context.windowOverrides': { kind: 'numberMap', default: {}, minimum: 1024, maximum: 10_000_000 },
  'compaction.auto': { kind: 'boolean', default: true },
  'compaction.review': { kind: 'enum', default: 'manual', values: ['always', 'manual', 'never'] },
  'compaction.triggerPercent': { kind: 'number', default: 0, minimum: 0, maximum: 100 },
  'compaction.cacheLifetimeSeconds': { kind: 'number', default: 300, minimum: 0, maximum: 86_400 },
  'compaction.reserveTokens': { kind: 'number', default: 0, minimum: 0, maximum: 1_000_000 },
  'compaction.keepRecentTokens': { kind: 'number', default: 0, minimum: 0, maximum: 1_000_000 },
  'compaction.summaryTokens': { kind: 'number', default: 0, minimum: 0, maximum: 100_000 },
  'compaction.summaryModel': { kind: 'string', default: '' },
  'compaction.customInstructions': { kind: 'string', default: '' },
  'pruning.enabled': { kind: 'boolean', default: true },
  'pruning.protectTokens': { kind: 'number', default: 0, minimum: 0, maximum: 1_000_000 },
  'pruning.minimumTokens': { kind: 'number', default: 0, minimum: 0, maximum: 1_000_000 },
  'pruning.protectTurns': { kind: 'number', default: 2, minimum: 0, maximum: 50 },
  'pruning.protectedTools': { kind: 'stringArray', default: [] },
  'tools.outputMaxChars': { kind: 'number', default: 0, minimum: 0, maximum: 1_000_000 },
  'tools.outputMaxLines': { kind: 'number', default: 0, minimum: 0, maximum: 100_000 },
  'tools.commandTimeoutSeconds': { kind: 'number', default: 60, minimum: 1, maximum: 3600 },
  'tools.requireConfirmation': { kind: 'boolean', default: true },
  'tools.includeVsCodeTools': { kind: 'boolean', default: true },
  'tools.runCommandsInTerminal': { kind: 'boolean', default: false },
  'tools.snapshotMaxBytes': { kind: 'number', default: 64 * 1024 * 1024, minimum: 0, maximum: 1024 * 1024 * 1024 },
  'tools.snapshotStoreMaxMegabytes': { kind: 'number', default: 2048, minimum: 0, maximum: 1024 * 1024 },
  'tools.delegateMaxPerReply': { kind: 'number', default: 3, minimum: 0, maximum: 20 },
  'tools.delegateMaxPerRequest': { kind: 'number', default: 8, minimum: 0, maximum: 100 },
  'statusBar.warningPercent': { kind: 'number', default: 70, minimum: 1, maximum: 100 },
  'statusBar.errorPercent': { kind: 'number', default: 90, minimum: 1, maximum: 100 },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTING_SPECS;

export interface ParsedSettings {
  settings: Settings;
  warnings: SettingWarning[];
}

/**
 * Validates raw values read by key (e.g. from `workspace.getConfiguration`) into typed settings.
 * Invalid values fall back to the default (numbers are clamped) and produce a warning naming the setting.
 */
export function parseSettings(read: (key: SettingKey) => RawValue): ParsedSettings {
  const warnings: SettingWarning[] = [];
  const values = new Map<string, unknown>();
  for (const [key, spec] of Object.entries(SETTING_SPECS) as Array<[SettingKey, SettingSpec]>) {
    values.set(key, parseValue(key, spec, read(key), warnings));
  }
  const get = <T>(key: SettingKey): T => values.get(key) as T;
  const settings: Settings = {
    endpoint: {
      baseUrl: get('endpoint.baseUrl'),
      model: get('endpoint.model'),
      headers: get('endpoint.headers'),
      flavor: get('endpoint.flavor'),
      maxTokensParameter: get('endpoint.maxTokensParameter'),
      systemRole: get('endpoint.systemRole'),
      timeoutSeconds: get('endpoint.timeoutSeconds'),
      maxRetries: get('endpoint.maxRetries'),
      imageInput: get('endpoint.imageInput'),
    },
    context: { windowTokens: get('context.windowTokens'), maxOutputTokens: get('context.maxOutputTokens'), windowOverrides: get('context.windowOverrides') },
    compaction: {
      auto: get('compaction.auto'),
      review: get('compaction.review'),
      triggerPercent: get('compaction.triggerPercent'),
      cacheLifetimeSeconds: get('compaction.cacheLifetimeSeconds'),
      reserveTokens: get('compaction.reserveTokens'),
      keepRecentTokens: get('compaction.keepRecentTokens'),
      summaryTokens: get('compaction.summaryTokens'),
      summaryModel: get('compaction.summaryModel'),
      customInstructions: get('compaction.customInstructions'),
    },
    pruning: {
      enabled: get('pruning.enabled'),
      protectTokens: get('pruning.protectTokens'),
      minimumTokens: get('pruning.minimumTokens'),
      protectTurns: get('pruning.protectTurns'),
      protectedTools: get('pruning.protectedTools'),
    },
    tools: {
      outputMaxChars: get('tools.outputMaxChars'),
      outputMaxLines: get('tools.outputMaxLines'),
      commandTimeoutSeconds: get('tools.commandTimeoutSeconds'),
      requireConfirmation: get('tools.requireConfirmation'),
      includeVsCodeTools: get('tools.includeVsCodeTools'),
      runCommandsInTerminal: get('tools.runCommandsInTerminal'),
      snapshotMaxBytes: get('tools.snapshotMaxBytes'),
      snapshotStoreMaxMegabytes: get('tools.snapshotStoreMaxMegabytes'),
      delegateMaxPerReply: get('tools.delegateMaxPerReply'),
      delegateMaxPerRequest: get('tools.delegateMaxPerRequest'),
    },
    statusBar: { warningPercent: get('statusBar.warningPercent'), errorPercent: get('statusBar.errorPercent') },
  };
  if (settings.statusBar.errorPercent < settings.statusBar.warningPercent) {
    warnings.push({
      key: 'statusBar.errorPercent',
      message: `${SETTINGS_SECTION}.statusBar.errorPercent (${settings.statusBar.errorPercent}) is below warningPercent (${settings.statusBar.warningPercent}); using ${settings.statusBar.warningPercent}.`,
    });
    settings.statusBar.errorPercent = settings.statusBar.warningPercent;
  }
  return { settings, warnings };
}

/** The defaults, for the CLI and tests. */
export function defaultSettings(): Settings {
  return parseSettings(() => undefined).settings;
}
