// Copies the codicon font and stylesheet next to the webview bundle (dist/media), the panel's only resource root.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Copies codicon.css and codicon.ttf into <root>/dist/media; returns the copied paths. */
export function copyPanelAssets(projectRoot = root) {
  const from = path.join(projectRoot, 'node_modules', '@vscode', 'codicons', 'dist');
  const to = path.join(projectRoot, 'dist', 'media');
  fs.mkdirSync(to, { recursive: true });
  return ['codicon.css', 'codicon.ttf'].map((name) => {
    const target = path.join(to, name);
    fs.copyFileSync(path.join(from, name), target);
    return target;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) copyPanelAssets();
