// Every file below a folder with its content: proves a fault case created or changed nothing outside the workspace.
import { readdirSync, readFileSync } from 'node:fs';
import * as nodePath from 'node:path';

export function treeSnapshot(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((name) => {
      try {
        return `${name}=${readFileSync(nodePath.join(dir, name), 'utf8')}`;
      } catch {
        return `${name}/`;
      }
    })
    .join('\n');
}
