// What a request of the agent loop is given, and what it keeps while it runs (the counting deps, the tool limits, the state of its steps).
import type { CommandSnapshots } from '../checkpoints/commandSnapshots';
import type { SummarizeFn } from '../compaction/compaction';
import type { Calibration } from '../budget/calibration';
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import type { DoneEvent, ModelStream } from '../llm/modelStream';
import type { UserAttachment, UserImage } from '../session/entries';
import type { Settings } from '../settings/settings';
import type { CountCache } from '../tokens/countCache';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { ToolLimits } from '../tools/toolTypes';
import { DEFAULT_TOOL_LIMITS } from '../tools/toolTypes';
import type { WorkspaceAccess } from '../tools/workspaceAccess';
import type { AskRestoredBranch, ReviewCompaction } from './agentEvents';
import type { AgentLog } from './agentLog';
import type { GateState } from './contextGate';
import { buildSystemPrompt } from './systemPrompt';

export const DEFAULT_MAX_STEPS = 50;

export interface AgentOptions {
  log: AgentLog;
  model: ModelStream;
  modelId: string;
  registry: ToolRegistry;
  workspace: WorkspaceAccess;
  settings: Settings;
  contextWindow: number;
  /** False when the window is an assumption (no source told us); default true. */
  windowKnown?: boolean;
  /** The most output tokens the model accepts, when its listing says so. */
  maxOutputTokens?: number;
  counter: TokenCounter;
  cache: CountCache;
  calibration?: Calibration;
  summarize: SummarizeFn;
  /** Asked when a compaction needs a person (review mode "always", or a summary that failed validation). */
  review?: ReviewCompaction;
  /** Asked in place when a call on a branch restored before a compaction would not fit (else the request stops). */
  askRestoredBranch?: AskRestoredBranch;
  signal: AbortSignal;
  /** Appended as the user's message first; omit to continue from the current leaf. */
  userText?: string;
  /** Files and selections the user attached to that message (already capped, see userAttachments.ts). */
  userAttachments?: UserAttachment[];
  /** Images the user attached to that message, stored in the blob store (see userImages.ts). */
  userImages?: UserImage[];
  systemPrompt?: string;
  systemRole?: 'system' | 'developer';
  maxSteps?: number;
  /**
   * Told when an overflow error names a window smaller than the one assumed, or when the server kept only
   * part of a prompt (to remember it across sessions).
   */
  onContextWindowLearned?: (window: number, how: WindowEvidence) => void;
  /** The server drops the oldest messages of a prompt longer than its window instead of refusing it (Ollama). */
  serverTruncates?: boolean;
  /** How to raise this server's window, said when it truncated a prompt. */
  raiseWindowHint?: string;
  /** Snapshots the workspace around each run_command, so Restore Checkpoint can put back what it changed. */
  commandSnapshots?: CommandSnapshots;
  /**
   * Asked once per request, after the first reply, when given: the window is unknown (a model the server loaded for
   * that request, a deployment whose model the reply names) or was read before the model was loaded. The window now
   * known, used from the next call on (a known one only when smaller).
   */
  windowAfterReply?: (done: DoneEvent) => Promise<number | undefined>;
}

/** What taught a window: a refusal that named it, or a prompt the server shortened to fit it. */
export type WindowEvidence = 'overflow' | 'truncation';

/** The tool settings with the output cap the window's thresholds chose (settings say 0 = scale). */
export function toolSettings(settings: Settings, measured: MeasuredContext): Settings['tools'] {
  return { ...settings.tools, outputMaxChars: measured.thresholds.toolOutputChars, outputMaxLines: measured.thresholds.toolOutputLines };
}

export function toolLimits(tools: Settings['tools']): ToolLimits {
  // Pages of read_stored_output stay below the inline cap so reading back is never capped again.
  return {
    ...DEFAULT_TOOL_LIMITS,
    commandTimeoutMs: tools.commandTimeoutSeconds * 1000,
    pageChars: Math.floor(tools.outputMaxChars * 0.8),
    pageLines: Math.floor(tools.outputMaxLines * 0.8),
  };
}

export function countingDeps(options: AgentOptions): CountingDeps {
  const tools = options.registry.definitions();
  const systemPrompt =
    options.systemPrompt ?? buildSystemPrompt({ toolNames: options.registry.names(), workspaceRoots: options.workspace.roots() });
  return { ...options, tools, systemPrompt, systemRole: options.systemRole ?? 'system' };
}

/** What a request keeps while it runs. */
export interface LoopState {
  gate: GateState;
  deps: CountingDeps;
  steps: number;
  overflowRecoveries: number;
  /** Most output tokens the next call may ask for, after the server refused a prompt + reply that did not fit. */
  outputCeiling?: number;
  /** A compaction was made in this request because the server refused a prompt. */
  compactedForOverflow?: boolean;
  /** Every call this request made (name and arguments): a repeated one is no progress. */
  calls: Set<string>;
  /** The user was told this request that the server truncated a prompt. */
  toldTruncation?: boolean;
  /** The window was asked for after a reply this request (windowAfterReply). */
  askedWindow?: boolean;
}
