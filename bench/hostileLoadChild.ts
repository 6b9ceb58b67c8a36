// One load of a session file in a fresh process (bench row 10): the writable open with its repair, the current path, and verify.
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { buildVerifyReport } from '../src/core/cli/verifyReport';
import { parseLog } from '../src/core/session/logParser';
import { SessionLog } from '../src/core/session/sessionLog';
import { BlobStore } from '../src/core/storage/blobStore';
import { nodeFileIo } from '../src/core/storage/fileIo';
import { collectGarbage, cpuNow } from './timing';
import { exitFlushed } from './flushedExit';

/** Everything the extension host and the CLI do with a session file on open; prints the CPU time it took. */
async function load(file: string): Promise<void> {
  collectGarbage();
  const start = cpuNow();
  await buildVerifyReport(parseLog(readFileSync(file), file), new BlobStore(nodePath.join(nodePath.dirname(file), 'blobs'), nodeFileIo));
  const { log } = await SessionLog.open(file);
  log.path();
  await log.close();
  process.stdout.write(`${JSON.stringify({ cpuMs: cpuNow() - start })}\n`);
}

load(process.argv[2] ?? '').catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  exitFlushed(1);
});
