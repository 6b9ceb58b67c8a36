// Snapshots every file a tool changes: a WorkspaceAccess wrapper that stores the content before and after each write.
import type { FileChange } from '../session/entries';
import { blobRefOf } from '../storage/blobStore';
import { resolveLexically } from '../tools/pathSafety';
import type { CommandOptions, CommandResult, TextEdit, WorkspaceAccess } from '../tools/workspaceAccess';
import type { CommandSnapshots } from './commandSnapshots';
import type { SnapshotStore } from './snapshotStore';


/** True for "no such file" as node (ENOENT) and VS Code (FileNotFound) report it. */
export function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'FileNotFound';
}

interface Located {
  path: string;
  absolute: string;
}

function locate(raw: string, roots: readonly string[]): Located | undefined {
  try {
    const resolved = resolveLexically(raw, roots);
    return { path: resolved.relative, absolute: resolved.absolute };
  } catch {
    return undefined;
  }
}

/**
 * The file's content now: null when it does not exist, undefined when it exists but cannot be read as text
 * (binary, too large, unreadable): such a change is recorded without a `before` and cannot be restored.
 */
async function contentOf(workspace: WorkspaceAccess, raw: string): Promise<string | null | undefined> {
  try {
    await workspace.stat(raw);
  } catch (error) {
    return isNotFound(error) ? null : undefined;
  }
  try {
    return await workspace.readFile(raw);
  } catch {
    return undefined;
  }
}

/** How much one snapshot may cost, and where the notes about files left without one go. */
export interface SnapshotLimits {
  /** Largest content (UTF-8 bytes) stored; larger files are changed without a snapshot (Infinity: no cap). */
  maxBytes: number;
  /** One sentence per file changed without a snapshot, for the tool result the person and the model read. */
  notes?: string[];
  /** Snapshots the workspace around each command, so what it changed is recorded too; without it commands are not. */
  commands?: CommandSnapshots;
  /** Set to why a command's changes could not all be recorded (a folder too large, the store full). */
  gap?: (reason: string) => void;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Wraps `inner` so that writeFile and applyEdit record a FileChange into `changes` once they succeed. A write
 * that fails or that the person declines records nothing. Reads and searches pass straight through; a command
 * is snapshotted before and after through `limits.commands` when given (what it changed is recorded like a
 * write), else it passes straight through too. A file above
 * `limits.maxBytes` is recorded without its `before` (so it is not restorable) and with only the hash of its
 * `after` (enough to tell whether someone changed it since), and a note says so.
 */
export function recordingWorkspace(inner: WorkspaceAccess, store: SnapshotStore, changes: FileChange[], limits: SnapshotLimits = { maxBytes: Number.POSITIVE_INFINITY }): WorkspaceAccess {
  const fits = (text: string): boolean => text.length <= limits.maxBytes && Buffer.byteLength(text, 'utf8') <= limits.maxBytes;
  const record = async (raw: string, before: string | null | undefined, fallbackAfter: string): Promise<void> => {
    const located = locate(raw, inner.roots());
    if (!located) return;
    const now = await contentOf(inner, raw);
    const after = now === undefined ? fallbackAfter : now;
    const tooLarge = [before, after].find((text): text is string => typeof text === 'string' && !fits(text));
    if (tooLarge !== undefined) {
      limits.notes?.push(`${located.path} was changed without a checkpoint snapshot: at ${megabytes(Buffer.byteLength(tooLarge, 'utf8'))} it is above compactionAgent.tools.snapshotMaxBytes (${megabytes(limits.maxBytes)}), so Restore Checkpoint cannot put it back.`);
      changes.push({ ...located, after: after === null ? null : blobRefOf(after) });
      return;
    }
    const beforeRef = before === undefined ? {} : { before: before === null ? null : await store.put(before) };
    changes.push({ ...located, ...beforeRef, after: after === null ? null : await store.put(after) });
  };
  return {
    roots: () => inner.roots(),
    isTrusted: () => inner.isTrusted(),
    readFile: (path: string) => inner.readFile(path),
    stat: (path: string) => inner.stat(path),
    listDir: (path: string) => inner.listDir(path),
    findFiles: (glob: string, limit: number, signal?: AbortSignal) => inner.findFiles(glob, limit, signal),
    searchText: (pattern, options) => inner.searchText(pattern, options),
    async runCommand(command: string, options: CommandOptions): Promise<CommandResult> {
      // In Restricted Mode the command is refused, and nothing of the folder is walked or read for it.
      if (!limits.commands || !inner.isTrusted()) return inner.runCommand(command, options);
      const commands = limits.commands;
      const pending = await commands.before(command, { store, maxBytes: limits.maxBytes, ...(options.signal ? { signal: options.signal } : {}) }).catch((error: unknown) => {
        limits.gap?.(error instanceof Error ? error.message : String(error));
        return undefined;
      });
      try {
        return await inner.runCommand(command, options);
      } finally {
        // Also after a failed, stopped or timed-out command: what it changed before it ended can be put back.
        const found = await pending?.after().catch((error: unknown) => ({ changes: [], notes: [], gap: error instanceof Error ? error.message : String(error) }));
        if (found) {
          changes.push(...found.changes);
          limits.notes?.push(...found.notes);
          if (found.gap) limits.gap?.(found.gap);
        }
      }
    },
    async writeFile(path: string, text: string, signal?: AbortSignal): Promise<void> {
      const before = await contentOf(inner, path);
      await inner.writeFile(path, text, signal);
      await record(path, before, text);
    },
    async applyEdit(path: string, edit: TextEdit, signal?: AbortSignal): Promise<void> {
      const before = await contentOf(inner, path);
      await inner.applyEdit(path, edit, signal);
      const expected = typeof before === 'string' ? before.slice(0, edit.offset) + edit.newText + before.slice(edit.offset + edit.oldText.length) : edit.newText;
      await record(path, before, expected);
    },
  };
}
