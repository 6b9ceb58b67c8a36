// The manifest against the code: commands, menus, walkthrough and context keys match the code; settings match SETTING_SPECS.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESTRICTED_SETTINGS, USER_ONLY_SETTINGS } from '../../src/core/settings/settingScopes';
import { SETTING_SPECS, SETTINGS_SECTION, type SettingSpec } from '../../src/core/settings/settings';

const ROOT = join(__dirname, '..', '..');

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function manifest(): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  if (!isRecord(parsed)) throw new Error('package.json is not an object');
  return parsed;
}

function contributes(): Record<string, unknown> {
  const parsed = manifest();
  if (!isRecord(parsed.contributes)) throw new Error('package.json has no contributes');
  return parsed.contributes;
}

/** package.nls.json: the English text of every %key% in the manifest. */
function nlsStrings(): Record<string, string> {
  const parsed: unknown = JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8'));
  if (!isRecord(parsed)) throw new Error('package.nls.json is not an object');
  return Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, String(value)]));
}

/** A manifest string as VS Code shows it: a %key% placeholder replaced by its package.nls.json text. */
function localized(value: unknown): string {
  const key = typeof value === 'string' ? /^%([^%]+)%$/.exec(value)?.[1] : undefined;
  return key === undefined ? String(value) : (nlsStrings()[key] ?? String(value));
}

/** Fields whose strings a person reads (VS Code shows them in the palette, settings, chat and walkthrough). */
const READ_FIELDS = new Set(['title', 'category', 'description', 'markdownDescription', 'fullName', 'displayName', 'enumDescriptions', 'markdownEnumDescriptions', 'deprecationMessage', 'markdownDeprecationMessage']);

/** Every string under a READ_FIELDS field, with its path, walking the given part of the manifest. */
function readStrings(value: unknown, path: string, underField = false): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return underField ? [{ path, text: value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => readStrings(item, `${path}[${index}]`, underField));
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => readStrings(item, `${path}.${key}`, READ_FIELDS.has(key)));
}

function manifestCommands(): string[] {
  const commands = contributes().commands;
  if (!Array.isArray(commands)) return [];
  return commands.flatMap((entry: unknown) => (isRecord(entry) && typeof entry.command === 'string' ? [entry.command] : []));
}

/** COMMAND_IDS as written in paletteCommands.ts (that module imports vscode, so it is read, not imported). */
function codeCommands(): string[] {
  const source = readFileSync(join(ROOT, 'src/vscode/paletteCommands.ts'), 'utf8');
  const block = /export const COMMAND_IDS = \[([\s\S]*?)\] as const;/.exec(source)?.[1];
  if (block === undefined) throw new Error('COMMAND_IDS not found in paletteCommands.ts');
  const learned = /export const LEARNED_WINDOWS_COMMAND = '([^']+)';/.exec(readFileSync(join(ROOT, 'src/vscode/endpoint/learnedWindowsCommand.ts'), 'utf8'))?.[1];
  if (learned === undefined) throw new Error('LEARNED_WINDOWS_COMMAND not found in learnedWindowsCommand.ts');
  return [...[...block.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? ''), learned];
}

/** CONTEXT_KEYS as written in contextKeys.ts (read, not imported, for the same reason). */
function codeContextKeys(): string[] {
  const source = readFileSync(join(ROOT, 'src/vscode/panel/contextKeys.ts'), 'utf8');
  const block = /export const CONTEXT_KEYS = \{([\s\S]*?)\} as const;/.exec(source)?.[1];
  if (block === undefined) throw new Error('CONTEXT_KEYS not found in contextKeys.ts');
  return [...block.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? '');
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Every menu entry the manifest contributes, with the menu it is in. */
function menuEntries(): Array<{ menu: string; command: unknown; when: unknown }> {
  const menus = contributes().menus;
  if (!isRecord(menus)) return [];
  return Object.entries(menus).flatMap(([menu, entries]) => records(entries).map((entry) => ({ menu, command: entry.command, when: entry.when })));
}

function walkthroughSteps(): Record<string, unknown>[] {
  return records(contributes().walkthroughs).flatMap((walkthrough) => records(walkthrough.steps));
}

function manifestSettings(): Record<string, Record<string, unknown>> {
  const configuration = contributes().configuration;
  const sections: unknown[] = Array.isArray(configuration) ? configuration : [configuration];
  const all: Record<string, Record<string, unknown>> = {};
  for (const section of sections) {
    if (!isRecord(section) || !isRecord(section.properties)) continue;
    for (const [key, value] of Object.entries(section.properties)) if (isRecord(value)) all[key] = value;
  }
  return all;
}

/** What the manifest must say for a spec (the fields VS Code validates and shows). */
function expectedSchema(spec: SettingSpec): Record<string, unknown> {
  switch (spec.kind) {
    case 'number':
      return { default: spec.default, minimum: spec.minimum, maximum: spec.maximum };
    case 'boolean':
      return { type: 'boolean', default: spec.default };
    case 'string':
      return { type: 'string', default: spec.default };
    case 'enum':
      return { type: 'string', default: spec.default, enum: [...spec.values] };
    case 'stringArray':
      return { type: 'array', default: spec.default, items: { type: 'string' } };
    case 'stringMap':
      return { type: 'object', default: spec.default, additionalProperties: { type: 'string' } };
    case 'numberMap':
      return { type: 'object', default: spec.default, additionalProperties: { type: 'integer', minimum: spec.minimum, maximum: spec.maximum } };
  }
}

describe('manifest vs code', () => {
  it('contributes exactly the commands paletteCommands registers', () => {
    const declared = manifestCommands();
    const registered = codeCommands();
    expect(registered.length).toBeGreaterThan(0);
    expect([...declared].sort()).toEqual([...registered].sort());
    expect(new Set(declared).size).toBe(declared.length);
  });

  it(`contributes exactly the ${SETTINGS_SECTION}.* settings of SETTING_SPECS`, () => {
    const declared = Object.keys(manifestSettings()).filter((key) => key.startsWith(`${SETTINGS_SECTION}.`));
    const specified = Object.keys(SETTING_SPECS).map((key) => `${SETTINGS_SECTION}.${key}`);
    expect(declared.sort()).toEqual(specified.sort());
  });

  it('declares each setting with the type, default, bounds and values the parser uses', () => {
    const declared = manifestSettings();
    for (const [key, spec] of Object.entries(SETTING_SPECS) as Array<[string, SettingSpec]>) {
      const schema = declared[`${SETTINGS_SECTION}.${key}`] ?? {};
      const expected = expectedSchema(spec);
      const actual = Object.fromEntries(Object.keys(expected).map((field) => [field, schema[field]]));
      expect({ key, ...actual }).toEqual({ key, ...expected });
      if (spec.kind === 'number') expect(['number', 'integer'], key).toContain(schema.type);
    }
  });
});

describe('menus, walkthrough and model provider', () => {
  it('puts only contributed commands into menus, with when clauses on keys the extension sets', () => {
    const commands = new Set(manifestCommands());
    const keys = new Set(codeContextKeys());
    const entries = menuEntries();
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(commands.has(String(entry.command)), `${entry.menu}: ${String(entry.command)}`).toBe(true);
      const used = typeof entry.when === 'string' ? [...entry.when.matchAll(/compactionAgent\.[A-Za-z]+/g)].map((match) => match[0]) : [];
      for (const key of used) expect(keys.has(key), `${entry.menu} ${String(entry.command)}: ${key}`).toBe(true);
    }
  });

  it('offers Show Context Budget in the Chat view title', () => {
    const entry = menuEntries().find((candidate) => candidate.menu === 'view/title' && candidate.command === 'compactionAgent.showBudget');
    expect(entry?.when).toMatch(/view == workbench\.panel\.chat\.view\.copilot/);
  });

  it('has a walkthrough of three steps whose media ship in the VSIX and whose links and events name real commands and keys', () => {
    const steps = walkthroughSteps();
    expect(steps).toHaveLength(3);
    const commands = new Set(manifestCommands());
    const keys = new Set(codeContextKeys());
    const ignore = readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    expect(ignore).toContain('!media/walkthrough/**');
    for (const step of steps) {
      const media = isRecord(step.media) ? step.media.markdown : undefined;
      expect(typeof media === 'string' && media.startsWith('media/walkthrough/'), String(step.id)).toBe(true);
      expect(existsSync(join(ROOT, String(media))), String(media)).toBe(true);
      const links = [...localized(step.description).matchAll(/command:(compactionAgent\.[A-Za-z]+)/g)].map((match) => match[1] ?? '');
      for (const link of links) expect(commands.has(link), link).toBe(true);
      for (const event of Array.isArray(step.completionEvents) ? step.completionEvents : []) {
        const [kind, name] = String(event).split(':');
        if (kind === 'onContext') expect(keys.has(name ?? ''), String(event)).toBe(true);
        if (kind === 'onCommand') expect(commands.has(name ?? ''), String(event)).toBe(true);
      }
    }
  });

  it('points the model provider\'s managementCommand at the guided setup', () => {
    const providers = records(contributes().languageModelChatProviders);
    expect(providers.map((provider) => provider.managementCommand)).toEqual(['compactionAgent.setUp']);
    expect(manifestCommands()).toContain('compactionAgent.setUp');
  });
});

/**
 * Settings a workspace may set, each with why that cannot send the conversation anywhere or run anything: every
 * setting is user-only (USER_ONLY_SETTINGS), restricted (RESTRICTED_SETTINGS) or here, so a new one must be placed.
 */
const WORKSPACE_MAY_SET: Record<string, string> = {
  'context.windowTokens': 'the size of the window: how much of the conversation goes to the same endpoint',
  'context.windowOverrides': 'the window per model, as above',
  'context.maxOutputTokens': 'how long a reply may be',
  'compaction.auto': 'whether the context is compacted without being asked',
  'compaction.review': 'whether a summary waits for review',
  'compaction.triggerPercent': 'when compaction starts',
  'compaction.cacheLifetimeSeconds': 'when compaction may start early',
  'compaction.reserveTokens': 'room kept for the reply',
  'compaction.keepRecentTokens': 'how much stays verbatim',
  'compaction.summaryTokens': 'how long a summary may be',
  'pruning.enabled': 'whether old outputs are hidden',
  'pruning.protectTokens': 'which outputs stay',
  'pruning.minimumTokens': 'when pruning is worth it',
  'pruning.protectTurns': 'which turns stay',
  'pruning.protectedTools': 'which tools are never pruned',
  'tools.outputMaxChars': 'how much of an output is inline',
  'tools.outputMaxLines': 'as above, in lines',
  'tools.commandTimeoutSeconds': 'how long a command the person allowed may take (nothing runs in Restricted Mode)',
  'tools.snapshotMaxBytes': 'which files a checkpoint keeps (nothing is snapshotted in Restricted Mode)',
  'statusBar.warningPercent': 'a color',
  'statusBar.errorPercent': 'a color',
};

function restrictedConfigurations(): unknown {
  const capabilities = manifest().capabilities;
  const untrusted = isRecord(capabilities) && isRecord(capabilities.untrustedWorkspaces) ? capabilities.untrustedWorkspaces : {};
  return untrusted.restrictedConfigurations;
}

describe('settings a workspace must not control', () => {
  it('places every setting: user-only, restricted in untrusted workspaces, or one a workspace may set for a stated reason', () => {
    const userOnly = new Set<string>(USER_ONLY_SETTINGS);
    const restricted = new Set<string>(RESTRICTED_SETTINGS);
    for (const key of Object.keys(SETTING_SPECS)) {
      const places = [userOnly.has(key), restricted.has(key), key in WORKSPACE_MAY_SET].filter(Boolean);
      expect(places, key).toHaveLength(1);
    }
    expect(Object.keys(WORKSPACE_MAY_SET).filter((key) => !(key in SETTING_SPECS))).toEqual([]);
  });

  it('declares every user-only setting with application or machine scope: only the person\'s own settings choose where text goes or what runs', () => {
    const settings = manifestSettings();
    for (const key of USER_ONLY_SETTINGS) expect(['application', 'machine'], key).toContain(settings[`${SETTINGS_SECTION}.${key}`]?.scope);
    for (const key of ['compaction.summaryModel', 'tools.runCommandsInTerminal', 'tools.includeVsCodeTools', 'tools.requireConfirmation', 'endpoint.imageInput']) expect(USER_ONLY_SETTINGS, key).toContain(key);
  });

  it('lists exactly the restricted settings in capabilities.untrustedWorkspaces.restrictedConfigurations', () => {
    expect(restrictedConfigurations()).toEqual(RESTRICTED_SETTINGS.map((key) => `${SETTINGS_SECTION}.${key}`));
    expect(RESTRICTED_SETTINGS).toContain('compaction.customInstructions');
  });

  it('declares every other setting with window scope: the extension reads them for the window, never per folder (a resource scope would be read without a resource)', () => {
    const settings = manifestSettings();
    const others = Object.keys(SETTING_SPECS).filter((key) => !(USER_ONLY_SETTINGS as readonly string[]).includes(key));
    expect(others.length).toBeGreaterThan(10);
    for (const key of others) expect(settings[`${SETTINGS_SECTION}.${key}`]?.scope, key).toBe('window');
  });

  it('lists every endpoint setting as user-only', () => {
    const endpointKeys = Object.keys(SETTING_SPECS).filter((key) => key.startsWith('endpoint.'));
    expect(endpointKeys.filter((key) => !(USER_ONLY_SETTINGS as readonly string[]).includes(key))).toEqual([]);
  });
});

/** A string constant as written in a source file (those modules import vscode, so they are read, not imported). */
function sourceConstant(file: string, name: string): string {
  const value = new RegExp(`export const ${name} = '([^']+)';`).exec(readFileSync(join(ROOT, file), 'utf8'))?.[1];
  if (value === undefined) throw new Error(`${name} not found in ${file}`);
  return value;
}

/** The activation events VS Code derives from what the manifest contributes (as its extension points generate them since 1.74). */
function impliedActivationEvents(): string[] {
  const parts = contributes();
  const ids = (value: unknown, field: string): string[] => records(value).flatMap((entry) => (typeof entry[field] === 'string' ? [entry[field]] : []));
  return [
    ...manifestCommands().map((command) => `onCommand:${command}`),
    ...ids(parts.chatParticipants, 'id').map((id) => `onChatParticipant:${id}`),
    ...ids(parts.languageModelChatProviders, 'vendor').map((vendor) => `onLanguageModelChatProvider:${vendor}`),
    ...ids(parts.languageModelTools, 'name').map((name) => `onLanguageModelTool:${name}`),
    ...ids(parts.walkthroughs, 'id').map((id) => `onWalkthrough:${id}`),
  ];
}

describe('activation', () => {
  it('activates on what uses the extension, never at startup in every window', () => {
    const declared = manifest().activationEvents;
    expect(Array.isArray(declared)).toBe(true);
    const explicit = (declared as unknown[]).map(String);
    for (const broad of ['*', 'onStartupFinished']) expect(explicit).not.toContain(broad);
    expect(explicit.filter((event) => /^(workspaceContains|onLanguage|onFileSystem|onUri)\b/.test(event))).toEqual([]);
    const events = new Set([...explicit, ...impliedActivationEvents()]);
    // The chat participant, the model provider (the chat's model picker lists the endpoint's models), the panel a reload restores.
    expect(events).toContain(`onChatParticipant:${sourceConstant('src/vscode/chat/chatParticipant.ts', 'PARTICIPANT_ID')}`);
    expect(events).toContain(`onLanguageModelChatProvider:${sourceConstant('src/vscode/endpoint/endpointModelProvider.ts', 'VENDOR')}`);
    expect(events).toContain(`onWebviewPanel:${sourceConstant('src/vscode/panel/compactionPanel.ts', 'PANEL_VIEW_TYPE')}`);
    for (const command of manifestCommands()) expect(events).toContain(`onCommand:${command}`);
  });

  it('declares only events for things it contributes or registers', () => {
    const implied = new Set(impliedActivationEvents());
    const panel = `onWebviewPanel:${sourceConstant('src/vscode/panel/compactionPanel.ts', 'PANEL_VIEW_TYPE')}`;
    const explicit = (manifest().activationEvents as unknown[]).map(String);
    expect(explicit.filter((event) => !implied.has(event) && event !== panel)).toEqual([]);
  });
});

describe('localization of the manifest', () => {
  it('gives every string a person reads a %key% placeholder', () => {
    const parts = { contributes: contributes(), capabilities: manifest().capabilities };
    const strings = readStrings(parts, 'package.json');
    expect(strings.length).toBeGreaterThan(80);
    const literal = strings.filter((entry) => !/^%[^%]+%$/.test(entry.text));
    expect(literal).toEqual([]);
  });

  it('has every %key% of package.json in package.nls.json, and no key package.json does not use', () => {
    const text = readFileSync(join(ROOT, 'package.json'), 'utf8');
    const used = new Set([...text.matchAll(/"%([^%"]+)%"/g)].map((match) => match[1] ?? ''));
    const defined = new Set(Object.keys(nlsStrings()));
    expect([...used].filter((key) => !defined.has(key))).toEqual([]);
    expect([...defined].filter((key) => !used.has(key))).toEqual([]);
    for (const [key, value] of Object.entries(nlsStrings())) expect(value.trim().length, key).toBeGreaterThan(0);
  });

  it('ships package.nls.json and the l10n bundle in the VSIX', () => {
    const ignore = readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    expect(ignore).toContain('!package.nls.json');
    expect(ignore).toContain('!l10n/**');
    expect(manifest().l10n).toBe('./l10n');
  });
});
