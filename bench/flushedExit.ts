// Ends the process once stdout and stderr have handed everything written to them to the OS (a write followed by process.exit cut piped output at 64 KB).
/**
 * Exits with `code` after what was written so far is flushed: on a pipe, Node writes stdout asynchronously, and
 * process.exit drops whatever is still queued (`npm run bench -- --json | …` read 64 KB of an 87 KB object).
 */
export function exitFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = (): void => {
    pending--;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}
