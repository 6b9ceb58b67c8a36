// `verify <session.jsonl> [--json]`: integrity report; exits non-zero only when the file cannot be read at all.
import * as nodePath from 'node:path';
import { parseLog, SessionReadError } from '../session/logParser';
import { BlobStore } from '../storage/blobStore';
import { errorCode } from '../storage/fileIo';
import { requireFile } from './cliArgs';
import type { CliCommand } from './cliDeps';
import { buildVerifyReport, formatVerifyReport } from './verifyReport';

export const verifyCommand: CliCommand = {
  options: { json: 'boolean' },
  run: async (args, deps) => {
    const file = requireFile(args, 'verify');
    let data: Buffer;
    try {
      data = await deps.io.readFile(file);
    } catch (error) {
      throw new SessionReadError(errorCode(error) === 'ENOENT' ? `session file not found: ${file}` : `cannot read ${file}`);
    }
    const parsed = parseLog(data, file);
    const report = await buildVerifyReport(parsed, new BlobStore(nodePath.join(nodePath.dirname(file), 'blobs'), deps.io));
    deps.out(args.switches.has('json') ? JSON.stringify(report, null, 2) : formatVerifyReport(report));
    return 0;
  },
};
