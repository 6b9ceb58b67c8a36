// The running extension's API, its settings changed for one test and put back, and a bounded wait for host-side state.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension';
import type { AgentSession } from '../../../src/vscode/sessions/agentSession';

export const EXTENSION_ID = 'compaction-labs.compaction-agent';
const SECTION = 'compactionAgent';

export async function agentApi(): Promise<ExtensionApi> {
  const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this host`);
  return extension.activate();
}

/** The session the last @agent request used. */
export async function activeSession(): Promise<AgentSession> {
  const session = (await agentApi()).sessions.active;
  assert.ok(session, 'no @agent session is active');
  return session;
}

/** Values for compactionAgent.* keys (user settings), each put back to unset by the returned function. */
export async function applySettings(values: Record<string, unknown>): Promise<() => Promise<void>> {
  const configuration = vscode.workspace.getConfiguration(SECTION);
  for (const [key, value] of Object.entries(values)) await configuration.update(key, value, vscode.ConfigurationTarget.Global);
  return async () => {
    const current = vscode.workspace.getConfiguration(SECTION);
    for (const key of Object.keys(values)) await current.update(key, undefined, vscode.ConfigurationTarget.Global);
  };
}

/** Settings every test starts from: no confirmation dialogs, no slow retries. */
export const BASE_SETTINGS: Record<string, unknown> = {
  'tools.requireConfirmation': false,
  'endpoint.maxRetries': 0,
  'compaction.review': 'never',
};

/**
 * Polls until `check` returns a value (not undefined). The bound only keeps a broken run from hanging;
 * no assertion depends on how long anything took.
 */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, boundMs = 30_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
