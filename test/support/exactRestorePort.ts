// The node restore port tests use: text for what file tools wrote, exact bytes (any name) for what commands changed.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { readExact, removeExact, writeExact } from '../../src/core/checkpoints/exactFiles';
import type { RestorePort } from '../../src/core/checkpoints/fileCheckpoints';

export const exactRestorePort: RestorePort = {
  read: (absolute) => Promise.resolve(existsSync(absolute) ? readFileSync(absolute, 'utf8') : null),
  write: async (absolute, text) => {
    await mkdir(nodePath.dirname(absolute), { recursive: true });
    writeFileSync(absolute, text);
  },
  remove: async (absolute, raw) => {
    if (raw) await removeExact(raw);
    else rmSync(absolute);
  },
  readBytes: (absolute, raw) => readExact(raw ?? absolute),
  writeBytes: (absolute, data, raw) => writeExact(raw ?? absolute, data),
};
