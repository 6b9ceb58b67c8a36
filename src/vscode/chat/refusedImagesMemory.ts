// Keeps the images endpoints refused in the global state, so a restarted window does not send them again.
import type * as vscode from 'vscode';
import { imageRejections, type ImageRejections } from '../../core/llm/imageRejections';

const KEY = 'compactionAgent.refusedImages';

/** Loads what an earlier window learned, and stores every later refusal. */
export function rememberRefusedImages(memento: vscode.Memento, rejections: ImageRejections = imageRejections): void {
  rejections.restore(memento.get(KEY));
  rejections.onChange(() => {
    void memento.update(KEY, rejections.snapshot());
  });
}
