// The files the person saves in the editor while a command runs (workspace.onDidSaveTextDocument): theirs, never taken for the command's.
import * as vscode from 'vscode';
import type { EditorSaves } from '../../core/checkpoints/commandSnapshots';

/** Saves are remembered only while a command is being watched; this many at most per watch. */
const MAX_REMEMBERED = 10_000;

export class EditorSaveWatch implements EditorSaves, vscode.Disposable {
  private readonly open = new Set<string[]>();
  private readonly listener: vscode.Disposable;

  constructor() {
    this.listener = vscode.workspace.onDidSaveTextDocument((document) => {
      if (document.uri.scheme !== 'file') return;
      for (const saved of this.open) if (saved.length < MAX_REMEMBERED) saved.push(document.uri.fsPath);
    });
  }

  watch(): () => readonly string[] {
    const saved: string[] = [];
    this.open.add(saved);
    return () => {
      this.open.delete(saved);
      return saved;
    };
  }

  dispose(): void {
    this.listener.dispose();
    this.open.clear();
  }
}
