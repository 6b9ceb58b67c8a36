// Entry point of the `compaction-agent` command (bundled to dist/cli.js): runs one command and exits with its code.
import { errorCode } from '../storage/fileIo';
import { runCli } from './runCli';

// Output piped into `head` closes early; that is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (errorCode(error) === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
