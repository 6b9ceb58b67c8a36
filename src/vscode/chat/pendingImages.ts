// Images queued for the next @agent request by "Attach Image…": the stable chat API does not hand chat-input images to extensions.
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { IMAGE_MIME_TYPES } from '../../core/context/userImages';
import type { ImageSource } from './chatAttachments';
import { readImageFile } from './chatAttachments';

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

/** The command: pick image files (or take the URIs given), queue them, and open the chat on @agent. */
export async function attachImages(pending: PendingImages, given?: unknown): Promise<void> {
  const uris = Array.isArray(given) && given.every((item) => item instanceof vscode.Uri) ? given : given instanceof vscode.Uri ? [given] : undefined;
  const picked = uris ?? (await vscode.window.showOpenDialog({ title: vscode.l10n.t('Attach Images to the next @agent request'), canSelectMany: true, filters: { [vscode.l10n.t('Images')]: Object.keys(IMAGE_MIME_TYPES) } }));
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
  if (refused.length > 0) void vscode.window.showWarningMessage(refused.join(' '));
  if (queued.length === 0) return;
  void vscode.window.showInformationMessage(vscode.l10n.t('{0} will go with your next @agent request.', queued.join(', ')));
  if (!uris) await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@agent ', isPartialQuery: true });
}
