// A file restore applied: each planned file compared with what is on disk now (content and mode), put back through the port, the replaced content kept first.
import { createHash } from 'node:crypto';
import * as nodePath from 'node:path';
import type { BlobRef, FileChange } from '../session/entries';
import { blobRefOf } from '../storage/blobStore';
import { resolveLexically } from '../tools/pathSafety';

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
  /** The permission bits to restore (a command's snapshot records them); absent: the file keeps its own, a new one gets the default. */
  targetMode?: number;
  /** The content the agent left last: when the file differs from it now, someone changed it since. */
  expected: BlobRef | null;
  /** `expected` is a hash of exact bytes rather than of text. */
  expectedExact?: boolean;
  /** The permission bits the agent left last, when recorded: a file whose mode differs was changed since too. */
  expectedMode?: number;
  /** False when the content at the checkpoint could not be read at the time (a binary file, say). */
  restorable: boolean;
  /** The person chose to replace what changed since too (its content is kept in the session first). */
  replaceChanged?: boolean;
}

/** A file's exact bytes and permission bits, read through one descriptor. */
export interface ExactContent {
  data: Buffer;
  mode: number;
}

/**
 * How the workspace files are read and written for a restore. Text (what a file tool wrote) goes through read and
 * write (VS Code: the editor's text, an undoable WorkspaceEdit); a command's snapshot is exact bytes and mode and goes
 * through readBytes and writeBytes when the port has them. `raw` is the path's exact bytes when its name is not
 * UTF-8. A port reads and writes only inside its workspace folders.
 */
export interface RestorePort {
  /** The file's text, or null when it does not exist; rejects when it cannot be read. */
  read(absolute: string): Promise<string | null>;
  write(absolute: string, text: string): Promise<void>;
  remove(absolute: string, raw?: Buffer): Promise<void>;
  /** The file's bytes on disk and its permission bits, or null when it does not exist. */
  readBytes?(absolute: string, raw?: Buffer): Promise<ExactContent | null>;
  /** Writes the bytes; with `mode`, the file gets exactly those permission bits (else it keeps its own, or the default). */
  writeBytes?(absolute: string, data: Buffer, raw?: Buffer, mode?: number): Promise<void>;
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

/** The file's current content as one side of a comparison: exact bytes and mode, and the text the person sees when the port shows text. */
interface Current {
  exists: boolean;
  bytes?: Buffer;
  mode?: number;
  text?: string | null;
}

async function currentOf(item: RestoreItem, port: Pick<RestorePort, 'read' | 'readBytes'>, raw: Buffer | undefined, exact: boolean): Promise<Current> {
  if (exact || raw) {
    if (!port.readBytes) throw new Error('its name is not valid UTF-8 and this restore can only read text');
    const file = await port.readBytes(item.absolute, raw);
    return file === null ? { exists: false } : { exists: true, bytes: file.data, mode: file.mode };
  }
  const text = await port.read(item.absolute);
  if (text === null) return { exists: false };
  // A command's snapshot was hashed as bytes: they are compared too (a file with a byte-order mark, say).
  const file = item.expectedExact && port.readBytes ? await port.readBytes(item.absolute).catch(() => undefined) : undefined;
  return { exists: true, text, ...(file ? { bytes: file.data, mode: file.mode } : {}) };
}

/**
 * True when the current content is `ref` (null: no file) with the permission bits `mode` when both are known; a ref
 * never hashed ("unrecorded") matches nothing.
 */
function matches(current: Current, ref: BlobRef | null | undefined, mode: number | undefined, hash: (text: string) => BlobRef): boolean {
  if (ref === undefined) return false;
  if (ref === null) return !current.exists;
  if (!current.exists || ref.sha256 === 'unrecorded') return false;
  if (mode !== undefined && current.mode !== undefined && current.mode !== mode) return false;
  if (current.bytes && sha256Of(current.bytes) === ref.sha256) return true;
  return typeof current.text === 'string' && hash(current.text).sha256 === ref.sha256;
}

/**
 * Files someone changed after the agent last wrote them (content or mode): a restore leaves those as they are (and
 * names them) unless the person chooses otherwise. A file already as the restore would leave it is not one (an
 * interrupted restore run again put it back already).
 */
export async function changedSince(items: readonly RestoreItem[], port: Pick<RestorePort, 'read' | 'readBytes'>, hash: (text: string) => BlobRef, roots?: readonly string[]): Promise<string[]> {
  const changed: string[] = [];
  for (const item of items) {
    try {
      const raw = roots ? confinedPathBytes(item, roots) : item.absoluteBytes ? Buffer.from(item.absoluteBytes, 'base64') : undefined;
      const current = await currentOf(item, port, raw, item.expectedExact === true && port.readBytes !== undefined);
      if (!matches(current, item.expected, item.expectedMode, hash) && !(item.restorable && matches(current, item.target, item.targetMode, hash))) changed.push(item.path);
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

/** The change a restore made, for its fileRestore entry (with the modes when they were read and written exactly). */
function changeMade(item: RestoreItem, exact: boolean, before: BlobRef | null, current: Current): FileChange {
  const afterMode = item.target === null ? undefined : (item.targetMode ?? current.mode);
  return {
    path: item.path,
    absolute: item.absolute,
    ...(item.absoluteBytes ? { absoluteBytes: item.absoluteBytes } : {}),
    ...(exact ? { exact: true } : {}),
    before,
    after: item.target,
    ...(exact && current.mode !== undefined ? { beforeMode: current.mode } : {}),
    ...(exact && afterMode !== undefined ? { afterMode } : {}),
  };
}

/** Puts one item back; the change it made (with the replaced content kept first), or undefined when the file already had its target content and mode. */
async function restoreOne(item: RestoreItem, port: RestorePort, blobs: BlobAccess, roots: readonly string[], kept: string[]): Promise<FileChange | undefined> {
  if (!item.restorable) throw new Error('its earlier content was not recorded (the tool result that changed it says why)');
  const raw = confine(item, roots);
  const exact = item.targetExact === true && port.readBytes !== undefined && port.writeBytes !== undefined && blobs.readBytes !== undefined;
  const current = await currentOf(item, port, raw, exact);
  if (matches(current, item.target, item.targetMode, blobRefOf)) return undefined;
  if (!item.replaceChanged && !matches(current, item.expected, item.expectedMode, blobRefOf)) {
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
  else if (exact && port.writeBytes && blobs.readBytes) await port.writeBytes(item.absolute, await blobs.readBytes(item.target), raw, item.targetMode);
  else if (raw) throw new Error('its name is not valid UTF-8 and this restore can only write text; nothing was written');
  else await port.write(item.absolute, await blobs.read(item.target));
  return changeMade(item, exact, before, current);
}

/**
 * Puts each restorable file back to its target content, exactly (bytes and mode for a command's snapshot, text for
 * a file tool's). A file whose content or mode is no longer what the agent left is not touched (it is listed in
 * `kept`) unless the person chose to replace it; the content a restore replaces goes to the blob store first, so
 * the restore itself can be undone. A file outside the workspace roots (a hand-edited session), or one whose shown
 * path names another file than the one written, is refused; one failure does not stop the others.
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
