// One scripted endpoint per test, configured as the extension's endpoint with a model id no other test uses.
import * as vscode from 'vscode';
import type { Script, ScriptedEndpoint, ScriptedEndpointOptions, RecordedRequest } from '../../support/scriptedEndpoint';
import { startScriptedEndpoint } from '../../support/scriptedEndpoint';
import { applySettings, BASE_SETTINGS, waitFor } from './agentApi';
import { VENDOR } from './chatDriver';

export interface EndpointFixture {
  server: ScriptedEndpoint;
  /** The model id to pick in the Chat view. */
  model: string;
  /** Puts the settings back and stops the server. */
  dispose(): Promise<void>;
}

let models = 0;

/**
 * Starts `script` on a free port, points compactionAgent.endpoint.* at it (plus `settings`) and waits
 * until VS Code lists the model (the provider refreshes through onDidChangeLanguageModelChatInformation).
 */
export async function useScriptedEndpoint(
  script: Script,
  settings: Record<string, unknown> = {},
  { listedWindow, ...options }: ScriptedEndpointOptions & { /** The window the endpoint's /models lists for the model. */ listedWindow?: number } = {},
): Promise<EndpointFixture> {
  const model = `scripted-model-${Date.now().toString(36)}-${++models}`;
  const listed = listedWindow ? { models: [{ id: model, object: 'model', created: 0, owned_by: 'scripted-endpoint', context_length: listedWindow }] } : {};
  const server = await startScriptedEndpoint(script, { model, ...listed, ...options });
  const restore = await applySettings({ ...BASE_SETTINGS, 'endpoint.baseUrl': server.url, 'endpoint.model': model, ...settings });
  await waitFor(`the model ${model} in vscode.lm`, async () => {
    const found = await vscode.lm.selectChatModels({ vendor: VENDOR, id: model });
    return found.length > 0 ? true : undefined;
  });
  return {
    server,
    model,
    dispose: async () => {
      await restore();
      await server.close();
    },
  };
}

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The messages array of a recorded chat-completions request. */
export function messagesOf(request: RecordedRequest | undefined): WireMessage[] {
  const body = request?.body as { messages?: unknown } | undefined;
  return Array.isArray(body?.messages) ? (body.messages as WireMessage[]) : [];
}

/** The whole text of a request (every message's content), for "contains" checks. */
export function requestText(request: RecordedRequest | undefined): string {
  return messagesOf(request)
    .map((message) => (typeof message.content === 'string' ? message.content : ''))
    .join('\n');
}

/** A summarizer call: no tools, and the system prompt asks for a summary. */
export function isSummaryRequest(request: RecordedRequest): boolean {
  const body = request.body as { tools?: unknown[] };
  const system = messagesOf(request).find((message) => message.role === 'system' || message.role === 'developer');
  const text = typeof system?.content === 'string' ? system.content : '';
  return (!Array.isArray(body.tools) || body.tools.length === 0) && /summar/i.test(text);
}

/** Chat (agent) requests only, in order. */
export function agentRequests(server: ScriptedEndpoint): RecordedRequest[] {
  return server.requests.filter((request) => !isSummaryRequest(request));
}

/** A summary that passes the summarizer's validation (every required section, concrete next steps). */
export function validSummary(goal: string): string {
  return [
    '## Goal',
    goal,
    '## Constraints and preferences',
    '- Keep the public API of slugify unchanged.',
    '## Progress',
    '### Done',
    '- Read the source files and the tests of the sample workspace.',
    '### In progress',
    '- Reviewing the command output.',
    '### Blocked',
    '(none)',
    '## Key decisions',
    '- Fix the failing test before refactoring.',
    '## Next steps',
    '- Run the tests again and report the result.',
    '## Critical context',
    '- The workspace is the sample workspace with src/slugify.mjs.',
  ].join('\n');
}
