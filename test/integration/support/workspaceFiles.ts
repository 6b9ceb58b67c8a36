// Files a test writes into the sample workspace (the harness's copy) and removes again, plus bulky but varied text for them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the harness opened no workspace folder');
  return folder.uri.fsPath;
}

/** Writes each file (relative to the workspace root); the returned function deletes them. */
export function writeWorkspaceFiles(files: Record<string, string>): () => void {
  const root = workspaceRoot();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return () => {
    for (const name of Object.keys(files)) fs.rmSync(path.join(root, name), { force: true });
  };
}

const WORDS = ['parser', 'token', 'window', 'budget', 'summary', 'branch', 'session', 'output', 'request', 'module', 'cache', 'thread'];

/** `count` distinct lines like a build log (about 14 tokens each), tagged so outputs can be told apart. */
export function logLines(tag: string, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = WORDS[(i * 7) % WORDS.length] ?? 'line';
    lines.push(`${tag} ${String(i).padStart(4, '0')}: ${word} check ${(i * 7919) % 10007} finished in ${(i * 31) % 997} ms`);
  }
  return `${lines.join('\n')}\n`;
}
