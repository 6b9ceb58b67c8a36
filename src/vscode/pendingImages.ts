// Images queued for the next @agent request by "Attach Image…": the stable chat API does not hand chat-input images to extensions.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { IMAGE_MIME_TYPES, MAX_IMAGE_BYTES } from '../core/context/userImages';
import { readRegularFile } from '../core/tools/safeFileIo';
import type { ImageSource } from './chatAttachments';

/** Held in memory until the next @agent request takes them; nothing is written before then. */
export class PendingImages {
  private images: ImageSource[] = [];

  get count(): number {
    return this.images.length;
  }

  add(image: ImageSource): void {
    this.images.push(image);
  }

  /** The queued images, once. */
  take(): ImageSource[] {
    const taken = this.images;
    this.images = [];
    return taken;
  }
}

/** Reads one image file for the queue; a sentence saying why when it cannot be sent. */
export async function readImageFile(uri: vscode.Uri): Promise<ImageSource | string> {
  const name = nodePath.basename(uri.path);
  const mimeType = IMAGE_MIME_TYPES[nodePath.extname(uri.path).slice(1).toLowerCase()];
  if (!mimeType) return `${name} is not a PNG, JPEG, GIF or WebP image.`;
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.size > MAX_IMAGE_BYTES) return `${name} is ${(stat.size / 1024 / 1024).toFixed(1)} MB; images above ${MAX_IMAGE_BYTES / 1024 / 1024} MB are refused by servers.`;
  const bytes = uri.scheme === 'file' ? await readRegularFile(uri.fsPath, name, MAX_IMAGE_BYTES) : await vscode.workspace.fs.readFile(uri);
  return { name, mimeType, bytes };
}

/** The command: pick image files (or take the URIs given), queue them, and open the chat on @agent. */
export async function attachImages(pending: PendingImages, given?: unknown): Promise<void> {
  const uris = Array.isArray(given) && given.every((item) => item instanceof vscode.Uri) ? given : given instanceof vscode.Uri ? [given] : undefined;
  const picked = uris ?? (await vscode.window.showOpenDialog({ title: 'Attach Images to the next @agent request', canSelectMany: true, filters: { Images: Object.keys(IMAGE_MIME_TYPES) } }));
  if (!picked || picked.length === 0) return;
  const queued: string[] = [];
  const refused: string[] = [];
  for (const uri of picked) {
    const image = await readImageFile(uri).catch((error: unknown) => `${nodePath.basename(uri.path)}: ${error instanceof Error ? error.message : String(error)}`);
    if (typeof image === 'string') refused.push(image);
    else {
      pending.add(image);
      queued.push(image.name);
    }
  }
  if (refused.length > 0) void vscode.window.showWarningMessage(`Not attached: ${refused.join(' ')}`);
  if (queued.length === 0) return;
  void vscode.window.showInformationMessage(`${queued.join(', ')} will go with your next @agent request.`);
  if (!uris) await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@agent ', isPartialQuery: true });
}
