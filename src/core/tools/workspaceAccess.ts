// The workspace port the file and command tools go through: node (tests, CLI) and VS Code implement it.

export interface WorkspaceFileStat {
  kind: 'file' | 'directory' | 'other';
  size: number;
  mtimeMs: number;
}

export interface DirEntry {
  name: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
}

export interface TextMatch {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
}

export interface SearchOptions {
  isRegex: boolean;
  /** Only files whose workspace-relative path matches this glob. */
  glob?: string;
  limit: number;
  signal?: AbortSignal;
}

/** What a search found, plus notes for the model: why it stopped early, what it skipped. */
export interface SearchResult {
  matches: TextMatch[];
  notes: string[];
}

export interface CommandOptions {
  /** Workspace-relative or absolute folder inside the workspace; default the first root. */
  cwd?: string;
  timeoutMs: number;
  /** Output kept in memory; beyond it the middle is dropped and counted. */
  maxOutputChars: number;
  signal?: AbortSignal;
}

export interface CommandResult {
  /** stdout and stderr interleaved as they arrived. */
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Characters dropped from the middle because the output exceeded maxOutputChars. */
  droppedChars: number;
}

/** An exact replacement: the text at `offset` must still be `oldText` when the edit is applied. */
export interface TextEdit {
  offset: number;
  oldText: string;
  newText: string;
}

/** What a person is asked before the workspace changes. */
export type ConfirmRequest =
  | { kind: 'write'; path: string; created: boolean; before: string; after: string }
  | { kind: 'edit'; path: string; before: string; after: string }
  | { kind: 'command'; command: string; cwd: string };

/** Resolves true when the person allowed the change. */
export type ConfirmChange = (request: ConfirmRequest, signal?: AbortSignal) => Promise<boolean>;

/**
 * File and command access confined to the workspace folders. Every path argument is the model's raw path;
 * implementations refuse paths outside the roots (see pathSafety.ts) by rejecting with a WorkspaceRefusal.
 */
export interface WorkspaceAccess {
  /** Absolute paths of the workspace folders; the first one resolves relative paths. */
  roots(): string[];
  isTrusted(): boolean;
  readFile(path: string): Promise<string>;
  stat(path: string): Promise<WorkspaceFileStat>;
  listDir(path: string): Promise<DirEntry[]>;
  /** Workspace-relative paths (forward slashes) of files matching the glob, at most `limit`. */
  findFiles(glob: string, limit: number, signal?: AbortSignal): Promise<string[]>;
  /** Runs the pattern off the calling thread under a time limit; a pattern that is too slow is a WorkspaceRefusal. */
  searchText(pattern: string, options: SearchOptions): Promise<SearchResult>;
  /** Creates or replaces a file after confirmation. */
  writeFile(path: string, text: string, signal?: AbortSignal): Promise<void>;
  /** Applies one exact replacement after confirmation. */
  applyEdit(path: string, edit: TextEdit, signal?: AbortSignal): Promise<void>;
  /** Runs a shell command after confirmation; refused in untrusted workspaces. */
  runCommand(command: string, options: CommandOptions): Promise<CommandResult>;
}

/** A refusal the model should read as is: unsafe path, untrusted workspace, declined by the person. */
export class WorkspaceRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspaceRefusal';
  }
}

/** The search_text pattern as a RegExp (literal unless isRegex); an invalid one is a clear refusal. Shared by every WorkspaceAccess. */
export function compilePattern(pattern: string, isRegex: boolean): RegExp {
  if (!isRegex) return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new WorkspaceRefusal(`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
}
