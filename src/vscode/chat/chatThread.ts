// Maps a Chat view thread to its stored session through ChatResult.metadata, read back with a type guard.
import type * as vscode from 'vscode';

/** What every @agent response stores in ChatResult.metadata. */
export interface AgentResultMetadata {
  sessionId: string;
  leafId: string | null;
}

export function isAgentResultMetadata(value: unknown): value is AgentResultMetadata {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.sessionId === 'string' && (record.leafId === null || typeof record.leafId === 'string');
}

/** Where the newest @agent response of `sessionId` in this thread left that session (its leaf then). */
export function threadLeafFromHistory(history: vscode.ChatContext['history'], participantId: string, sessionId: string): string | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    const turn = history[index];
    if (!turn || !('response' in turn) || turn.participant !== participantId) continue;
    const metadata = turn.result.metadata;
    if (isAgentResultMetadata(metadata) && metadata.sessionId === sessionId) return metadata.leafId ?? undefined;
  }
  return undefined;
}

/** The session of the newest @agent response in this thread, if any. */
export function sessionIdFromHistory(history: vscode.ChatContext['history'], participantId: string): string | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    const turn = history[index];
    if (!turn || !('response' in turn) || turn.participant !== participantId) continue;
    const metadata = turn.result.metadata;
    if (isAgentResultMetadata(metadata)) return metadata.sessionId;
  }
  return undefined;
}
