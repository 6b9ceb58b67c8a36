// File checkpoints: the points on a branch the files (and the conversation) can go back to, and the restore itself.
import type { BlobRef, FileChange, FileRestoreEntry, SessionEntry, UserAttachment } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import * as nodePath from 'node:path';
import { resolveLexically } from '../tools/pathSafety';
import { entryTitle } from '../session/entryTitle';
import { createHash } from 'node:crypto';
import { blobRefOf } from '../storage/blobStore';

/** A point before which the files can be restored: a request the person made, or an earlier file restore. */
export interface Checkpoint {
  entryId: string;
  kind: 'request' | 'restore';
  /** "You: fix the parser", or what an earlier restore did. */
  title: string;
  when: string;
  /** Workspace paths the agent (or a restore) changed from this point on, in the order first changed (the first few). */
  files: string[];
  /** How many files changed from this point on (`files` names the first CHECKPOINT_FILES_LISTED of them). */
  fileCount: number;
  /** The conversation can go back to before this point (false for the session's very first entry). */
  conversation: boolean;
  /** Calls from this point on whose workspace changes were not recorded (a folder too large to snapshot, say): not restorable. */
  unrecorded: UnrecordedChanges;
}

/** Calls whose changes a restore cannot put back, and why (each distinct reason once). */
export interface UnrecordedChanges {
  count: number;
  reasons: string[];
}

/** One file a restore would put back. */
export interface RestoreItem {
  path: string;
  absolute: string;
  /** The absolute path's exact bytes (base64) when its name is not valid UTF-8. */
  absoluteBytes?: string;
  /** The content to restore: null deletes the file (it did not exist at the checkpoint). */
  target: BlobRef | null;
  /** The target is the file's exact bytes (a command's snapshot), written back as they are; else text a file tool wrote. */
  targetExact?: boolean;
  /** The content the agent left last: when the file differs from it now, someone changed it since. */
  expected: BlobRef | null;
  /** `expected` is a hash of exact bytes rather than of text. */
  expectedExact?: boolean;
  /** False when the content at the checkpoint could not be read at the time (a binary file, say). */
  restorable: boolean;
  /** The person chose to replace what changed since too (its content is kept in the session first). */
  replaceChanged?: boolean;
}

function changesOf(entry: SessionEntry): readonly FileChange[] {
  if (entry.type === 'toolResult') return entry.fileChanges ?? [];
  if (entry.type === 'fileRestore') return entry.changes;
  return [];
}

function sameContent(a: BlobRef | null | undefined, b: BlobRef | null | undefined): boolean {
  if (a === null || b === null) return a === b;
  return a !== undefined && b !== undefined && a.sha256 === b.sha256;
}

function restoreTitle(entry: FileRestoreEntry, target: SessionEntry | undefined): string {
  const what = target && isMessageEntry(target) ? ` to before "${entryTitle(target).replace(/^You: /, '')}"` : '';
  return `Restore of ${entry.changes.length} file${entry.changes.length === 1 ? '' : 's'}${what}`;
}

/** What cannot be put back to this point, in words ("" when everything recorded can be). */
export function unrecordedSentence(point: Pick<Checkpoint, 'unrecorded'>): string {
  const { count, reasons } = point.unrecorded;
  if (count === 0) return '';
  return `cannot restore what ${count} command${count === 1 ? '' : 's'} since changed (${reasons.join('; ')})`;
}

/** How many file names one checkpoint carries; `fileCount` says how many changed in all. */
export const CHECKPOINT_FILES_LISTED = 50;

/**
 * Paths in the order they were first changed, as a walk back through the branch meets them: a path met again
 * moves to the front in O(1) (a linked list keyed by path), so the walk is linear in the changes it meets.
 */
class FirstChangeOrder {
  private readonly next = new Map<string, string | undefined>();
  private readonly previous = new Map<string, string | undefined>();
  private head: string | undefined;

  get size(): number {
    return this.next.size;
  }

  moveToFront(path: string): void {
    if (this.head === path) return;
    if (this.next.has(path)) {
      const before = this.previous.get(path);
      const after = this.next.get(path);
      if (before !== undefined) this.next.set(before, after);
      if (after !== undefined) this.previous.set(after, before);
    }
    this.next.set(path, this.head);
    this.previous.set(path, undefined);
    if (this.head !== undefined) this.previous.set(this.head, path);
    this.head = path;
  }

  first(count: number): string[] {
    const found: string[] = [];
    for (let at = this.head; at !== undefined && found.length < count; at = this.next.get(at)) found.push(at);
    return found;
  }
}

/**
 * The branch's checkpoints, newest first: every request, and every file restore (so a restore can be undone).
 * Linear in the branch: each checkpoint names at most CHECKPOINT_FILES_LISTED files (and counts the rest), and
 * the walk stops after `limit` checkpoints (the panel shows the newest few).
 */
export function checkpoints(path: readonly SessionEntry[], limit = Number.POSITIVE_INFINITY): Checkpoint[] {
  const found: Checkpoint[] = [];
  const order = new FirstChangeOrder();
  const unrecorded: UnrecordedChanges = { count: 0, reasons: [] };
  let byId: Map<string, SessionEntry> | undefined;
  for (let index = path.length - 1; index >= 0 && found.length < limit; index--) {
    const entry = path[index] as SessionEntry;
    const changes = changesOf(entry);
    // Walking back, a file changed again earlier moves to the front: the list stays in first-change order.
    for (let at = changes.length - 1; at >= 0; at--) order.moveToFront((changes[at] as FileChange).path);
    if (entry.type === 'toolResult' && entry.checkpointGap !== undefined) {
      unrecorded.count++;
      if (!unrecorded.reasons.includes(entry.checkpointGap) && unrecorded.reasons.length < 5) unrecorded.reasons.push(entry.checkpointGap);
    }
    const isRequest = entry.type === 'user' && !entry.synthetic;
    if (!isRequest && entry.type !== 'fileRestore') continue;
    if (entry.type === 'fileRestore') byId ??= new Map(path.map((candidate) => [candidate.id, candidate]));
    const title = entry.type === 'fileRestore' ? restoreTitle(entry, byId?.get(entry.targetId)) : entryTitle(entry);
    found.push({
      entryId: entry.id,
      kind: isRequest ? 'request' : 'restore',
      title,
      when: entry.timestamp,
      files: order.first(CHECKPOINT_FILES_LISTED),
      fileCount: order.size,
      conversation: index > 0,
      unrecorded: { count: unrecorded.count, reasons: [...unrecorded.reasons] },
    });
  }
  return found;
}

/**
 * What restoring the files to before `entryId` means: for every file changed from that entry on (by the
 * agent or by a restore), the content it had before the first of those changes. Files whose content would
 * not change are left out. Undefined when the entry is not on the branch.
 *
 * The workspace has one state whatever the branch: with `written` (every entry of the session in the order
 * it was written), changes made after the entry on branches left since (a "conversation only" restore, a
 * branch switch) count too, so the files really go back. Copies an undo made repeat changes already counted.
 */
export function planFileRestore(path: readonly SessionEntry[], entryId: string, written?: readonly SessionEntry[]): RestoreItem[] | undefined {
  const from = path.findIndex((entry) => entry.id === entryId);
  if (from < 0) return undefined;
  const start = written ? written.findIndex((entry) => entry.id === entryId) : -1;
  const since = written && start >= 0 ? written.slice(start).filter((entry) => entry.copyOf === undefined) : path.slice(from);
  const items = new Map<string, RestoreItem>();
  for (const entry of since) {
    for (const change of changesOf(entry)) {
      const key = change.absoluteBytes ?? change.absolute;
      const known = items.get(key);
      if (known) {
        known.expected = change.after;
        known.expectedExact = change.exact === true;
        continue;
      }
      items.set(key, {
        path: change.path,
        absolute: change.absolute,
        ...(change.absoluteBytes ? { absoluteBytes: change.absoluteBytes } : {}),
        target: change.before ?? null,
        targetExact: change.exact === true,
        expected: change.after,
        expectedExact: change.exact === true,
        restorable: change.before !== undefined,
      });
    }
  }
  return [...items.values()].filter((item) => !item.restorable || !sameContent(item.target, item.expected));
}

/**
 * How the workspace files are read and written for a restore. Text (what a file tool wrote) goes through read and
 * write (VS Code: the editor's text, an undoable WorkspaceEdit); a command's snapshot is exact bytes and goes through
 * readBytes and writeBytes when the port has them. `raw` is the path's exact bytes when its name is not UTF-8.
 */
export interface RestorePort {
  /** The file's text, or null when it does not exist; rejects when it cannot be read. */
  read(absolute: string): Promise<string | null>;
  write(absolute: string, text: string): Promise<void>;
  remove(absolute: string, raw?: Buffer): Promise<void>;
  /** The file's bytes on disk, or null when it does not exist. */
  readBytes?(absolute: string, raw?: Buffer): Promise<Buffer | null>;
  writeBytes?(absolute: string, data: Buffer, raw?: Buffer): Promise<void>;
}

export interface BlobAccess {
  read(ref: BlobRef): Promise<string>;
  put(text: string): Promise<BlobRef>;
  readBytes?(ref: BlobRef): Promise<Buffer>;
  putBytes?(data: Buffer): Promise<BlobRef>;
}

function sha256Of(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The path's exact bytes, refused unless they lie below a workspace root and read as `item.absolute` (what the person is shown). */
export function confinedPathBytes(item: Pick<RestoreItem, 'absolute' | 'absoluteBytes'>, roots: readonly string[]): Buffer | undefined {
  if (item.absoluteBytes === undefined) return undefined;
  const bytes = Buffer.from(item.absoluteBytes, 'base64');
  const refuse = (why: string): never => {
    throw new Error(`${why}; nothing was written`);
  };
  if (bytes.includes(0)) refuse('its recorded path holds a NUL byte');
  if (bytes.toString('utf8') !== item.absolute) refuse('its recorded path bytes do not name the file shown');
  const separators = nodePath.sep === '\\' ? /[\\/]/ : /\//;
  for (const root of roots) {
    const prefix = Buffer.from(root.endsWith(nodePath.sep) ? root : `${root}${nodePath.sep}`, 'utf8');
    if (bytes.length <= prefix.length || !bytes.subarray(0, prefix.length).equals(prefix)) continue;
    const segments = bytes.subarray(prefix.length).toString('latin1').split(separators);
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) refuse('its recorded path climbs out of the workspace folder');
    return bytes;
  }
  return refuse('it is outside the workspace folders');
}

/** The file's current content as one side of a comparison: exact bytes, and the text the person sees when the port shows text. */
interface Current {
  exists: boolean;
  bytes?: Buffer;
  text?: string | null;
}

async function currentOf(item: RestoreItem, port: Pick<RestorePort, 'read' | 'readBytes'>, raw: Buffer | undefined, exact: boolean): Promise<Current> {
  if (exact || raw) {
    if (!port.readBytes) throw new Error('its name is not valid UTF-8 and this restore can only read text');
    const bytes = await port.readBytes(item.absolute, raw);
    return bytes === null ? { exists: false } : { exists: true, bytes };
  }
  const text = await port.read(item.absolute);
  if (text === null) return { exists: false };
  // A command's snapshot was hashed as bytes: they are compared too (a file with a byte-order mark, say).
  const bytes = item.expectedExact && port.readBytes ? await port.readBytes(item.absolute).catch(() => undefined) : undefined;
  return { exists: true, text, ...(bytes ? { bytes } : {}) };
}

/** True when the current content is `ref` (null: no file); a ref never hashed ("unrecorded") matches nothing. */
function matches(current: Current, ref: BlobRef | null | undefined, hash: (text: string) => BlobRef): boolean {
  if (ref === undefined) return false;
  if (ref === null) return !current.exists;
  if (!current.exists || ref.sha256 === 'unrecorded') return false;
  if (current.bytes && sha256Of(current.bytes) === ref.sha256) return true;
  return typeof current.text === 'string' && hash(current.text).sha256 === ref.sha256;
}

/** Files someone changed after the agent last wrote them: a restore leaves those as they are (and names them) unless the person chooses otherwise. */
export async function changedSince(items: readonly RestoreItem[], port: Pick<RestorePort, 'read' | 'readBytes'>, hash: (text: string) => BlobRef, roots?: readonly string[]): Promise<string[]> {
  const changed: string[] = [];
  for (const item of items) {
    try {
      const raw = roots ? confinedPathBytes(item, roots) : item.absoluteBytes ? Buffer.from(item.absoluteBytes, 'base64') : undefined;
      const current = await currentOf(item, port, raw, item.expectedExact === true && port.readBytes !== undefined);
      if (!matches(current, item.expected, hash)) changed.push(item.path);
    } catch {
      changed.push(item.path);
    }
  }
  return changed;
}

export interface RestoreOutcome {
  /** What the restore did, as changes whose `before` keeps the replaced content (for the fileRestore entry). */
  changes: FileChange[];
  failed: Array<{ path: string; reason: string }>;
  /** Files left as they are: someone changed them after the agent last wrote them (a restore never overwrites that unasked). */
  kept: string[];
}

/**
 * Why the path a restore shows is not the file it would write (a hand-edited or hostile session can make them
 * differ), or undefined when `path` names `absolute`: resolved against the workspace roots, it must land on
 * exactly the absolute path written.
 */
export function shownPathMismatch(item: Pick<RestoreItem, 'path' | 'absolute'>, roots: readonly string[]): string | undefined {
  const written = resolveLexically(item.absolute, roots).absolute;
  // A path is shown relative to the root it is in (any of them), or absolute.
  const candidates = nodePath.isAbsolute(item.path) ? [item.path] : roots.map((root) => nodePath.resolve(root, item.path));
  if (candidates.some((candidate) => nodePath.normalize(candidate) === written)) return undefined;
  const clip = (text: string): string => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
  return `the session shows it as ${clip(item.path)} but would write ${clip(item.absolute)}; nothing was written`;
}

/** Checks that the item names a file inside the workspace (its exact bytes when it has them); returns those bytes. */
function confine(item: RestoreItem, roots: readonly string[]): Buffer | undefined {
  const raw = confinedPathBytes(item, roots);
  if (raw) return raw;
  resolveLexically(item.absolute, roots);
  const mismatch = shownPathMismatch(item, roots);
  if (mismatch) throw new Error(mismatch);
  return undefined;
}

/** Puts one item back; the change it made (with the replaced content kept first), or undefined when the file already had its target content. */
async function restoreOne(item: RestoreItem, port: RestorePort, blobs: BlobAccess, roots: readonly string[], kept: string[]): Promise<FileChange | undefined> {
  if (!item.restorable) throw new Error('its earlier content was not recorded (the tool result that changed it says why)');
  const raw = confine(item, roots);
  const exact = item.targetExact === true && port.readBytes !== undefined && port.writeBytes !== undefined && blobs.readBytes !== undefined;
  const current = await currentOf(item, port, raw, exact);
  if (matches(current, item.target, blobRefOf)) return undefined;
  if (!item.replaceChanged && !matches(current, item.expected, blobRefOf)) {
    kept.push(item.path);
    return undefined;
  }
  // The replaced content goes to the store first, so the restore itself can be undone.
  let before: BlobRef | null = null;
  if (current.exists) {
    if (exact && current.bytes && blobs.putBytes) before = await blobs.putBytes(current.bytes);
    else if (!exact && typeof current.text === 'string') before = await blobs.put(current.text);
    else throw new Error('its current content could not be read to keep it first; nothing was written');
  }
  if (item.target === null) await port.remove(item.absolute, raw);
  else if (exact && port.writeBytes && blobs.readBytes) await port.writeBytes(item.absolute, await blobs.readBytes(item.target), raw);
  else if (raw) throw new Error('its name is not valid UTF-8 and this restore can only write text; nothing was written');
  else await port.write(item.absolute, await blobs.read(item.target));
  return {
    path: item.path,
    absolute: item.absolute,
    ...(item.absoluteBytes ? { absoluteBytes: item.absoluteBytes } : {}),
    ...(exact ? { exact: true } : {}),
    before,
    after: item.target,
  };
}

/**
 * Puts each restorable file back to its target content, exactly (bytes for a command's snapshot, text for a file
 * tool's). A file whose content is no longer what the agent left is not touched (it is listed in `kept`) unless the
 * person chose to replace it; the content a restore replaces goes to the blob store first, so the restore itself
 * can be undone. A file outside the workspace roots (a hand-edited session), or one whose shown path names another
 * file than the one written, is refused; one failure does not stop the others.
 */
export async function applyFileRestore(items: readonly RestoreItem[], port: RestorePort, blobs: BlobAccess, roots: readonly string[]): Promise<RestoreOutcome> {
  const outcome: RestoreOutcome = { changes: [], failed: [], kept: [] };
  for (const item of items) {
    try {
      const change = await restoreOne(item, port, blobs, roots, outcome.kept);
      if (change) outcome.changes.push(change);
    } catch (error) {
      outcome.failed.push({ path: item.path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
}

/**
 * The note the next request carries when files were restored since the model last spoke: it must not trust
 * what it remembers of them. Undefined when no restore happened since the last message.
 */
export function restoreNotice(path: readonly SessionEntry[]): UserAttachment | undefined {
  const restored: string[] = [];
  for (let index = path.length - 1; index >= 0; index--) {
    const entry = path[index] as SessionEntry;
    if (isMessageEntry(entry)) break;
    if (entry.type !== 'fileRestore') continue;
    for (const change of entry.changes) if (!restored.includes(change.path)) restored.push(change.path);
  }
  if (restored.length === 0) return undefined;
  const lines = restored.map((file) => `- ${file}`).join('\n');
  return {
    label: 'files restored by the user',
    text: `The user restored these files to an earlier checkpoint; edits made to them after it are no longer in the workspace. Read them again before relying on their content or editing them:\n${lines}`,
  };
}
