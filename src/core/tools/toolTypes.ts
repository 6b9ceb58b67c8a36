// What a tool is: its definition as sent to the model, and an execute that never throws.
import type { ChatToolDefinition } from '../context/chatMessage';
import type { BlobRef, SessionEntry, SubagentLink, ToolCall } from '../session/entries';
import type { WorkspaceAccess } from './workspaceAccess';

/** Files a tool call read or modified (workspace-relative), collected into the compaction file ledger. */
export interface ToolFiles {
  read?: string[];
  modified?: string[];
}

export interface ToolOutput {
  text: string;
  isError: boolean;
  files?: ToolFiles;
  /** A delegated sub-task's child session and usage, kept on the result entry. */
  subagent?: SubagentLink;
}

/** Read access to the session the tool runs in (read_stored_output, read_transcript). */
export interface SessionAccess {
  entry(id: string): SessionEntry | undefined;
  /** Entries from the root to the current leaf. */
  path(): SessionEntry[];
  readBlob(ref: BlobRef): Promise<string>;
}

export interface ToolLimits {
  commandTimeoutMs: number;
  /** Memory bound for one command's output (the inline cap is applied later by capToolOutput). */
  commandOutputChars: number;
  /** Page size of read_stored_output and read_transcript; kept below the inline cap so pages are never capped. */
  pageChars: number;
  pageLines: number;
}

/**
 * The reply a call came in: all its calls in order (the same array for each of them) and this call's place among
 * them. Servers repeat or omit call ids, so a call is known by its place, never by its id.
 */
export interface ReplyPosition {
  calls: readonly ToolCall[];
  index: number;
}

export interface ToolContext {
  signal: AbortSignal;
  workspace: WorkspaceAccess;
  session?: SessionAccess;
  limits: ToolLimits;
  /** As the model sent it: it may repeat within a reply, so nothing is counted or looked up by it. */
  toolCallId: string;
  /** Set when the call runs as part of a model's reply (the agent loop); absent for a call made on its own. */
  reply?: ReplyPosition;
}

export interface Tool {
  definition: ChatToolDefinition;
  /** Resolves for bad arguments and failures alike (isError true, a message the model can act on). */
  execute(args: unknown, context: ToolContext): Promise<ToolOutput>;
}

/** A tool contributed from outside the core (e.g. vscode.lm.tools); wrapped into a Tool by the registry. */
export interface ExternalTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  invoke(args: unknown, signal: AbortSignal): Promise<string>;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  commandTimeoutMs: 60_000,
  commandOutputChars: 2_000_000,
  pageChars: 20_000,
  pageLines: 800,
};

export function errorOutput(text: string): ToolOutput {
  return { text, isError: true };
}

/** The message of anything thrown, for the model; node errors keep their code (ENOENT, EISDIR...). */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'No such file or folder.';
    if (code === 'EISDIR') return 'That is a folder, not a file.';
    if (code === 'ENOTDIR') return 'That is a file, not a folder.';
    return error.message;
  }
  return String(error);
}
