// The extension in the real extension host: present, activates, registers its commands and declares its settings.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SETTINGS_SECTION, SETTING_SPECS } from '../../src/core/settings/settings';

const EXTENSION_ID = 'compaction-labs.compaction-agent';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Command ids from the manifest's contributes.commands (the manifest is untyped JSON). */
function declaredCommandIds(manifest: unknown): string[] {
  const contributes = isRecord(manifest) ? manifest.contributes : undefined;
  const commands = isRecord(contributes) ? contributes.commands : undefined;
  if (!Array.isArray(commands)) return [];
  return commands.flatMap((entry: unknown) => (isRecord(entry) && typeof entry.command === 'string' ? [entry.command] : []));
}

function ourExtension(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this host`);
  return extension;
}

describe('activation', () => {
  it('is installed and activates without throwing', async () => {
    const extension = ourExtension();
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('activates without loading the tokenizer, and records how long activation took', async () => {
    const api = (await ourExtension().activate()) as { activation?: { totalMs: number; activateMs: number } };
    const tables = Object.keys(require.cache).filter((file) => /[\\/]encodings[\\/](o200k_base|cl100k_base)\.js$/.test(file));
    assert.deepEqual(tables, [], 'a BPE table was loaded during activation');
    assert.ok(api.activation && api.activation.activateMs >= 0 && api.activation.totalMs >= api.activation.activateMs, 'no activation timing');
    // The benchmark reads this (row 7: activation in code-server).
    const out = path.join(ourExtension().extensionPath, 'test-results', 'activation.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ ...api.activation, tokenizerLoaded: false, host: vscode.env.appName, version: vscode.version }, null, 2));
  });

  it('runs in the workspace (Node) extension host, where it can reach files and processes', () => {
    assert.equal(ourExtension().extensionKind, vscode.ExtensionKind.Workspace);
  });

  it('runs inside code-server 1.139.x when the harness says so', function () {
    // The same suite runs on desktop VS Code through .vscode-test.mjs; only the code-server harness sets this.
    if (process.env.AGENT_TEST_HOST !== 'code-server') this.skip();
    assert.equal(vscode.env.appName, 'code-server');
    assert.match(vscode.version, /^1\.139\.\d+/);
  });

  it('registers every command declared in contributes.commands', async () => {
    await ourExtension().activate();
    const declared = declaredCommandIds(ourExtension().packageJSON);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `declared but not registered: ${missing.join(', ')}`);
  });

  it(`declares every ${SETTINGS_SECTION}.* setting with the default the core uses`, () => {
    const configuration = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const wrong = Object.entries(SETTING_SPECS).flatMap(([key, spec]) => {
      const actual = configuration.inspect(key)?.defaultValue;
      const same = JSON.stringify(actual) === JSON.stringify(spec.default);
      return same ? [] : [`${key}: expected ${JSON.stringify(spec.default)}, got ${JSON.stringify(actual)}`];
    });
    assert.deepEqual(wrong, [], wrong.join('\n'));
  });
});
