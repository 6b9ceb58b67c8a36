// The node restore port tests use: text for what file tools wrote, exact bytes and mode (any name) for what commands changed, every byte read and written inside the workspace folders.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { readExact, removeExact, writeExact } from '../../src/core/checkpoints/exactFiles';
import type { RestorePort } from '../../src/core/checkpoints/fileCheckpoints';

/** The port for the workspace folders `roots` gives (read at each call: a test's folder is made per test). */
export function exactRestorePort(roots: () => readonly string[]): RestorePort {
  return {
    read: (absolute) => Promise.resolve(existsSync(absolute) ? readFileSync(absolute, 'utf8') : null),
    write: async (absolute, text) => {
      await mkdir(nodePath.dirname(absolute), { recursive: true });
      writeFileSync(absolute, text);
    },
    remove: (absolute, raw) => removeExact(raw ?? absolute, roots()),
    readBytes: (absolute, raw) => readExact(raw ?? absolute, roots()),
    writeBytes: (absolute, data, raw, mode) => writeExact(raw ?? absolute, data, roots(), mode),
  };
}
