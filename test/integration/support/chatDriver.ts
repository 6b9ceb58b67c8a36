// Drives the real Chat view: sends `@agent` messages through the chat pipeline with our model, starts threads, cancels.
import * as vscode from 'vscode';
import type { ChatReply } from '../../../src/vscode/chat/chatReplies';
import { agentApi, waitFor } from './agentApi';

export const VENDOR = 'compaction-agent';

/** What `workbench.action.chat.open` with blockOnResponse resolves to: the participant's ChatResult. */
export interface SentChat {
  result: vscode.ChatResult;
  reply: ChatReply;
}

function asChatResult(value: unknown): vscode.ChatResult {
  return typeof value === 'object' && value !== null ? value : {};
}

/** A fresh chat thread (the next message starts a new @agent session unless it names one). */
export async function newChatThread(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.newChat');
}

/** A line range as the workbench takes it (1-based, end column exclusive). */
export interface WorkbenchRange {
  startLineNumber: number;
  startColumn: number;
  endLineNumber: number;
  endColumn: number;
}

/** What the chat input has attached when the query is sent: files, or parts of them (they reach request.references). */
export interface ChatAttachments {
  attachFiles?: Array<vscode.Uri | { uri: vscode.Uri; range: WorkbenchRange }>;
}

/**
 * Sends `query` as if typed into the Chat view with `modelId` picked, and resolves once the response is
 * complete. Everything the reply showed is read back from the extension's reply recorder.
 */
export async function sendChat(query: string, modelId: string, attachments: ChatAttachments = {}): Promise<SentChat> {
  const api = await agentApi();
  const before = api.replies.all.length === 0 ? undefined : api.replies.last;
  const result: unknown = await vscode.commands.executeCommand('workbench.action.chat.open', {
    query,
    isPartialQuery: false,
    modelSelector: { vendor: VENDOR, id: modelId },
    blockOnResponse: true,
    ...attachments,
  });
  const reply = api.replies.last;
  if (!reply || reply === before) throw new Error(`@agent did not answer "${query}" (result: ${JSON.stringify(result)})`);
  // The chat resolves early (`{ type: 'confirmation' }`) while a tool confirmation waits: the request goes on after the
  // answer, so wait for the handler itself to return (the caller answers the confirmation meanwhile).
  if (!reply.done) await waitFor(`@agent to finish "${query}"`, () => (reply.done ? true : undefined), 120_000);
  return { result: asChatResult(reply.result ?? result), reply };
}

/** Stops the request running in the Chat view (the stop button). */
export async function cancelChat(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.cancel');
}

/** The session id and leaf the reply stored in ChatResult.metadata. */
export function resultSession(result: vscode.ChatResult): { sessionId: string; leafId: string | null } | undefined {
  const metadata: unknown = result.metadata;
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const record = metadata as Record<string, unknown>;
  if (typeof record.sessionId !== 'string') return undefined;
  return { sessionId: record.sessionId, leafId: typeof record.leafId === 'string' ? record.leafId : null };
}
