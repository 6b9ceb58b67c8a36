// The session log's entry types: one JSON object per line, forming a tree through id/parentId.
import type { BlobRef } from '../storage/blobStore';

/** Current on-disk schema version; one migration per step lives in migrations.ts. */
export const SCHEMA_VERSION = 1;

/** First line of every session file. */
export interface SessionHeader {
  type: 'session';
  version: number;
  id: string;
  timestamp: string;
  title?: string;
  cwd?: string;
  /** Set when the session was started from a reviewed summary of another one (a hand-off): where it came from. */
  handoffFrom?: HandoffSource;
  /** Set when the session was imported from another agent's file. */
  importedFrom?: { format: 'pi'; path: string; sessionId?: string };
  /** Set on a delegated sub-task's session: the session and tool call that started it. */
  parent?: { sessionId: string; toolCallId: string };
}

/** The session a hand-off summarized: its id, the leaf the summary was made on, and its title then. */
export interface HandoffSource {
  sessionId: string;
  leafId: string | null;
  title: string;
}

/** Token usage as the endpoint reported it for one model call. */
export interface Usage {
  /** Total prompt tokens the endpoint counted (cached ones included). */
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the provider's cache, when reported. */
  cachedTokens?: number;
  /** Prompt tokens written to the provider's cache, when reported (Anthropic-style). */
  cacheWriteTokens?: number;
  /** What the call cost in USD, when the endpoint reported it (OpenRouter's `usage.cost`); see isReportedCost. */
  cost?: number;
}

/** Largest believable cost of one model call in USD; anything above is a corrupt report, not a bill. */
export const MAX_REPORTED_COST_USD = 1_000_000;

/** A reported cost we believe: a finite number of USD from 0 to MAX_REPORTED_COST_USD. */
export function isReportedCost(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_REPORTED_COST_USD;
}

/** A tool call as the model emitted it; arguments stay the raw JSON text the model sent. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type { BlobRef } from '../storage/blobStore';

interface EntryBase {
  id: string;
  /** Parent in the session tree; null only for the root entry. */
  parentId: string | null;
  timestamp: string;
  /** Set on entries a restore appended again: the entry this one copies (see compactionUndo.ts). */
  copyOf?: string;
}

/** Text the user attached to a message (a file, a selection): its label says where it came from. */
export interface UserAttachment {
  /** The path, with the line range for a selection (e.g. "src/app.ts, lines 10-24"). */
  label: string;
  /** What the model sees: the contents, or their head and tail with a note when they were capped. */
  text: string;
}

/** An image attached to a user message; its size is absent when the header could not be read. */
export interface UserImage {
  /** The image's bytes, base64-encoded, as a text blob. */
  blob: BlobRef;
  mimeType: string;
  name: string;
  width?: number;
  height?: number;
}

export interface UserEntry extends EntryBase {
  type: 'user';
  text: string;
  /** Files and selections attached to the message, sent after its text. */
  attachments?: UserAttachment[];
  /** Images attached to the message: their bytes as base64 text in a blob, sent only to models that take images. */
  images?: UserImage[];
  /** Set on messages the agent wrote itself (e.g. "continue" after an automatic compaction). */
  synthetic?: boolean;
}

export type StopReason = 'stop' | 'length' | 'toolCalls' | 'aborted' | 'error' | 'contentFilter';

export interface AssistantEntry extends EntryBase {
  type: 'assistant';
  text: string;
  toolCalls: ToolCall[];
  /** Reasoning text the model exposed; kept for the UI, never sent back. */
  reasoning?: string;
  model?: string;
  usage?: Usage;
  stopReason?: StopReason;
  error?: string;
}

/** One file the agent changed (or a restore put back): its content before and after, by blob. */
export interface FileChange {
  /** Workspace-relative path as shown to the user (forward slashes). */
  path: string;
  /** Absolute path at the time; a restore checks again that it is inside the workspace before writing. */
  absolute: string;
  /** The content before: null when the file did not exist; absent when it could not be read (not restorable). */
  before?: BlobRef | null;
  /** The content after: null when the file no longer exists. */
  after: BlobRef | null;
  /**
   * True when before and after are the file's exact bytes (a command's snapshot: any encoding, any line ending),
   * written back as they are; otherwise they are the text a file tool wrote, written back as text.
   */
  exact?: boolean;
  /** The absolute path's exact bytes (base64) when its name is not valid UTF-8 (then `path` shows U+FFFD). */
  absoluteBytes?: string;
  /**
   * The file's permission bits (mode & 0o7777) before and after, when recorded (a command's snapshot, a restore of
   * one). Absent in logs written before modes were recorded: a restore then keeps a file's mode, a new file gets the default.
   */
  beforeMode?: number;
  afterMode?: number;
}

export interface ToolResultEntry extends EntryBase {
  type: 'toolResult';
  toolCallId: string;
  toolName: string;
  isError: boolean;
  /** What the model sees: the whole output, or its head and tail with a note when it was capped. */
  content: string;
  /** The full output when it did not fit inline (content then holds the capped view). */
  blob?: BlobRef;
  /** Files this call changed, snapshotted before and after: the file checkpoints a restore goes back to. */
  fileChanges?: FileChange[];
  /** Why what this call changed in the workspace could not be recorded (a folder too large to snapshot, say): not restorable. */
  checkpointGap?: string;
  /** Set on a delegated sub-task's result: the child session it ran in, and what its model calls used. */
  subagent?: SubagentLink;
}

/** A delegated sub-task's child session and the usage of its model calls (added to the parent's usage). */
export interface SubagentLink {
  sessionId: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD, when the endpoint reported costs. */
  cost?: number;
}

/** Files the summarized part of the session read and modified (cumulative across compactions). */
export interface FileLedger {
  read: string[];
  modified: string[];
}

export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  /** First entry on the path kept verbatim after the summary; null when nothing before it is kept. */
  firstKeptEntryId: string | null;
  /** When the cut falls inside a turn: summary of that turn's prefix (its user message and early steps). */
  turnPrefixSummary?: string;
  /**
   * The request sent verbatim right after the summary, as the cut plan decided (the turn the cut fell into); null
   * when it carries none. Absent in logs written before it was recorded: the context builder then derives it.
   */
  carriedRequestId?: string | null;
  tokensBefore: number;
  tokensAfter: number;
  files: FileLedger;
  instructions?: string;
  /** A person edited the summary in the review panel before it was applied. */
  edited: boolean;
  auto: boolean;
  model?: string;
  /** On the first entry of a session started by a hand-off: the summary came from this session (kept whole). */
  handoffFrom?: HandoffSource;
}

/** Hides tool outputs from the model on this branch; the outputs stay in the log and the UI. */
export interface PruneEntry extends EntryBase {
  type: 'prune';
  toolResultIds: string[];
  tokensFreed: number;
  reason: 'auto' | 'manual';
}

/**
 * Removes chosen messages from what the model sees on this branch (a failed approach, one huge tool result),
 * always whole tool exchanges; `dropped: false` with the same ids undoes it. The messages stay in the log and
 * the UI, and later summaries name what was dropped on purpose.
 */
export interface DropEntry extends EntryBase {
  type: 'drop';
  /** Message entries, in path order: every call with its results. */
  entryIds: string[];
  dropped: boolean;
  /** What was dropped, in words for the person and the summary (e.g. "turns 3–5"). */
  label: string;
  /** Tokens the change took out of the context (or, undone, brought back), measured when it was made. */
  tokens: number;
}

/** Pins (or unpins) a message so that it survives every compaction verbatim. */
export interface PinEntry extends EntryBase {
  type: 'pin';
  targetId: string;
  pinned: boolean;
}

export interface ModelChangeEntry extends EntryBase {
  type: 'modelChange';
  model: string;
  provider?: string;
}

export interface SettingsChangeEntry extends EntryBase {
  type: 'settingsChange';
  changes: Record<string, string | number | boolean | null>;
}

export interface LabelEntry extends EntryBase {
  type: 'label';
  targetId: string;
  label: string;
}

/**
 * Moves the current leaf without adding a node to the tree (restore before a compaction, switch branch).
 * parentId is the leaf it moved away from; targetId the new leaf. It is never anyone's parent.
 */
export interface LeafEntry extends EntryBase {
  type: 'leaf';
  targetId: string;
  reason: 'restore' | 'switch';
}

/**
 * A line of a type this version does not know (a newer version wrote it): kept in place and in the tree, so
 * entries below it keep their parent, but never sent to the model and never written by this version.
 */
export interface OpaqueEntry extends EntryBase {
  type: 'opaque';
  /** The line's JSON value exactly as read (its own `type` included); a rewrite of the log writes it back as is. */
  line: Record<string, unknown>;
}

/**
 * Files put back to how they were before `targetId` (a user entry or a compaction). The contents the restore
 * replaced are its changes' `before`, so a later restore can bring them back: restoring loses nothing.
 */
export interface FileRestoreEntry extends EntryBase {
  type: 'fileRestore';
  targetId: string;
  changes: FileChange[];
}

export type MessageEntry = UserEntry | AssistantEntry | ToolResultEntry;

export type SessionEntry =
  | UserEntry
  | AssistantEntry
  | ToolResultEntry
  | CompactionEntry
  | PruneEntry
  | DropEntry
  | PinEntry
  | ModelChangeEntry
  | SettingsChangeEntry
  | LabelEntry
  | LeafEntry
  | FileRestoreEntry
  | OpaqueEntry;

export function isMessageEntry(entry: SessionEntry): entry is MessageEntry {
  return entry.type === 'user' || entry.type === 'assistant' || entry.type === 'toolResult';
}
