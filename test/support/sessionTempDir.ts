// Test helper: a fresh temporary folder per test, and a FileIo wrapper that injects write faults.
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { nodeFileIo, type FileIo } from '../../src/core/storage/fileIo';

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(nodePath.join(os.tmpdir(), 'session-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** nodeFileIo whose next appendDurable writes only `partial` chars of its text, then fails with ENOSPC. */
export class FaultyFileIo implements FileIo {
  failNextAppend: { partial: number } | undefined;
  readFile = nodeFileIo.readFile;
  writeFileAtomic = nodeFileIo.writeFileAtomic;
  createExclusive = nodeFileIo.createExclusive;
  exists = nodeFileIo.exists;
  stat = nodeFileIo.stat;
  readdir = nodeFileIo.readdir;
  mkdirp = nodeFileIo.mkdirp;
  rename = nodeFileIo.rename;
  unlink = nodeFileIo.unlink;
  truncate = nodeFileIo.truncate;

  async appendDurable(path: string, text: string): Promise<void> {
    const fault = this.failNextAppend;
    if (fault && !path.endsWith('.quarantine.jsonl')) {
      this.failNextAppend = undefined;
      if (fault.partial > 0) await nodeFileIo.appendDurable(path, text.slice(0, fault.partial));
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    }
    await nodeFileIo.appendDurable(path, text);
  }
}
