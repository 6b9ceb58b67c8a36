// Reads what the user attached to a chat request (#file, selections, text, images) into attachment sources for the core.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import type { AttachmentSource } from '../../core/agent/userAttachments';
import { readRegularFile } from '../../core/tools/safeFileIo';
import { IMAGE_MIME_TYPES, MAX_IMAGE_BYTES } from '../../core/context/userImages';
import { refusedImage, sniffImage } from '../../core/context/imageSniff';

/** Attached files above this size are not read (only a capped head and tail would reach the model anyway). */
const MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024;
/** Bytes looked at to tell a binary file from text. */
const SNIFF_BYTES = 8192;

/** An attached image's bytes, before they are stored (see agentRun.ts). */
export interface ImageSource {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
}

export interface ReadAttachments {
  sources: AttachmentSource[];
  images: ImageSource[];
  /** One sentence per attachment that was not sent, saying why (shown in the reply). */
  skipped: string[];
}

/** The image (or other bytes) VS Code attaches as ChatReferenceBinaryData; recognised by shape, the type is not in the stable API. */
interface BinaryReference {
  mimeType: string;
  reference?: vscode.Uri;
}

function isBinaryReference(value: unknown): value is BinaryReference & { data: () => Thenable<Uint8Array> } {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.mimeType === 'string' && typeof record.data === 'function';
}

/** The path the tools take: relative in the first folder, absolute in another; `readable` only inside the workspace. */
function nameOf(uri: vscode.Uri): { name: string; readable: boolean } {
  if (uri.scheme !== 'file') return { name: uri.scheme === 'untitled' ? uri.path : uri.toString(true), readable: false };
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return { name: uri.fsPath, readable: false };
  if (folder.index === 0) return { name: vscode.workspace.asRelativePath(uri, false), readable: true };
  return { name: uri.fsPath, readable: true };
}

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
}

/** The text the user sees: an open editor's (unsaved changes included), else the file on disk. */
async function textOf(uri: vscode.Uri, shown: string): Promise<string> {
  const open = openDocument(uri);
  if (open) return open.getText();
  const bytes = uri.scheme === 'file' ? await readRegularFile(uri.fsPath, shown, MAX_ATTACHMENT_BYTES) : await vscode.workspace.fs.readFile(uri);
  if (looksBinary(bytes)) throw new Error('it is a binary file');
  return new TextDecoder().decode(bytes);
}

/** A folder attachment becomes its listing: the model can read the files it needs. */
async function folderListing(uri: vscode.Uri): Promise<string> {
  const entries = await vscode.workspace.fs.readDirectory(uri);
  return entries
    .map(([name, type]) => (type & vscode.FileType.Directory ? `${name}/` : name))
    .sort()
    .join('\n');
}

async function fromUri(uri: vscode.Uri): Promise<AttachmentSource> {
  const { name, readable } = nameOf(uri);
  // An open editor (an untitled one too, which has nothing on disk to stat) is read as shown.
  const open = openDocument(uri);
  if (open) return { name, text: open.getText(), readable };
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.type & vscode.FileType.Directory) return { name: vscode.l10n.t('{0} (folder listing)', name), text: await folderListing(uri), readable: false };
  return { name, text: await textOf(uri, name), readable };
}

async function fromLocation(location: vscode.Location): Promise<AttachmentSource> {
  const { name, readable } = nameOf(location.uri);
  const lines = (await textOf(location.uri, name)).split(/\r?\n/);
  const { start, end } = location.range;
  // A selection ending at the start of a line does not include that line.
  const last = end.line > start.line && end.character === 0 ? end.line - 1 : end.line;
  const to = Math.min(Math.max(last, start.line), lines.length - 1);
  return { name, text: lines.slice(start.line, to + 1).join('\n'), readable, lines: { start: start.line + 1, end: to + 1 } };
}

function shownName(reference: vscode.ChatPromptReference): string {
  const value = reference.value;
  if (value instanceof vscode.Uri) return nodePath.basename(value.path);
  if (value instanceof vscode.Location) return nodePath.basename(value.uri.path);
  if (isBinaryReference(value) && value.reference) return nodePath.basename(value.reference.path);
  return reference.modelDescription ?? reference.id;
}

/** Extensions treated as pictures (sent or refused by their bytes), not read as text. */
const PICTURE_EXTENSIONS = new Set([...Object.keys(IMAGE_MIME_TYPES), 'svg', 'svgz', 'bmp', 'ico', 'cur', 'psd', 'tif', 'tiff', 'heic', 'heif', 'avif', 'jxl', 'apng']);

function looksLikePicture(path: string): boolean {
  return PICTURE_EXTENSIONS.has(nodePath.extname(path).slice(1).toLowerCase());
}

function tooLarge(name: string, bytes: number): string {
  return vscode.l10n.t('Not sent: the image {0} is {1} MB; images above {2} MB are refused by servers.', name, (bytes / 1024 / 1024).toFixed(1), MAX_IMAGE_BYTES / 1024 / 1024);
}

/** The image by its bytes, whatever its name or declared type says: a whole PNG, JPEG, GIF or WebP, or a sentence saying why not. */
function checkedImage(name: string, bytes: Uint8Array): ImageSource | string {
  const sniffed = sniffImage(bytes);
  return 'error' in sniffed ? refusedImage(name, sniffed.error) : { name, mimeType: sniffed.mimeType, bytes };
}

/**
 * An image file (attached with #file, or picked by Attach Image): its bytes, or a sentence saying why it is not
 * sent. The format comes from the bytes. The user chose this file, so a hard link to it is read like any file.
 */
export async function readImageFile(uri: vscode.Uri): Promise<ImageSource | string> {
  const name = nodePath.basename(uri.path);
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.size > MAX_IMAGE_BYTES) return tooLarge(name, stat.size);
  const bytes = uri.scheme === 'file' ? await readRegularFile(uri.fsPath, name, MAX_IMAGE_BYTES, 'allow') : await vscode.workspace.fs.readFile(uri);
  return checkedImage(name, bytes);
}

async function imageFromBinary(reference: vscode.ChatPromptReference, value: BinaryReference & { data: () => Thenable<Uint8Array> }): Promise<ImageSource | string> {
  const name = shownName(reference);
  const bytes = await value.data();
  if (bytes.length > MAX_IMAGE_BYTES) return tooLarge(name, bytes.length);
  return checkedImage(name, bytes);
}

async function sourceOf(reference: vscode.ChatPromptReference): Promise<AttachmentSource | ImageSource | string> {
  const value = reference.value;
  if (value instanceof vscode.Uri) {
    return looksLikePicture(value.path) ? readImageFile(value) : fromUri(value);
  }
  if (value instanceof vscode.Location) return fromLocation(value);
  if (typeof value === 'string') return { name: reference.modelDescription ?? reference.id, text: value, readable: false };
  if (isBinaryReference(value)) {
    if (value.mimeType.startsWith('image/')) return imageFromBinary(reference, value);
    return vscode.l10n.t('Not sent: {0} ({1}); @agent sends text and images, not other binary data.', shownName(reference), value.mimeType);
  }
  return vscode.l10n.t('Not sent: {0}; @agent does not read this kind of attachment.', shownName(reference));
}

/** Reads every attachment; one that cannot be read becomes a line in `skipped` instead of failing the request. */
export async function readChatAttachments(references: readonly vscode.ChatPromptReference[]): Promise<ReadAttachments> {
  const result: ReadAttachments = { sources: [], images: [], skipped: [] };
  const seen = new Set<string>();
  for (const reference of references) {
    try {
      const source = await sourceOf(reference);
      if (typeof source === 'string') {
        result.skipped.push(source);
        continue;
      }
      if ('bytes' in source) {
        result.images.push(source);
        continue;
      }
      const key = `${source.name}\u0000${source.lines?.start ?? ''}-${source.lines?.end ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      result.sources.push(source);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      result.skipped.push(vscode.l10n.t('Not sent: {0}; {1}.', shownName(reference), why.replace(/\.$/, '')));
    }
  }
  return result;
}
