// The node port a restore writes through in the unit tier (the extension uses a WorkspaceEdit instead).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { RestorePort } from '../../src/core/checkpoints/fileCheckpoints';

export const nodeRestorePort: RestorePort = {
  read: (absolute) => Promise.resolve(existsSync(absolute) ? readFileSync(absolute, 'utf8') : null),
  write: async (absolute, text) => {
    await mkdir(nodePath.dirname(absolute), { recursive: true });
    writeFileSync(absolute, text);
  },
  remove: (absolute) => {
    rmSync(absolute);
    return Promise.resolve();
  },
};
