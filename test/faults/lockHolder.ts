// Child process of the two-writers family: opens a session for writing, reports the outcome, holds it until SIGTERM.
import { SessionLog } from '../../src/core/session/sessionLog';
import { SessionLockedError } from '../../src/core/storage/sessionLock';

async function main(): Promise<void> {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: lockHolder <file>');
  let log: SessionLog;
  try {
    log = (await SessionLog.open(file)).log;
  } catch (error) {
    process.stdout.write(
      error instanceof SessionLockedError ? `refused ${error.message}\n` : `error ${String(error)}\n`,
    );
    return;
  }
  const entry = await log.append({ type: 'user', text: `written by pid ${process.pid}` });
  process.stdout.write(`locked ${entry.id}\n`);
  const release = (): void => {
    log.close().then(
      () => process.exit(0),
      () => process.exit(3),
    );
  };
  process.once('SIGTERM', release);
  // Never hold forever if the parent dies.
  setTimeout(release, 60_000).unref();
  setInterval(() => undefined, 1_000);
}

main().catch((error: unknown) => {
  process.stdout.write(`error ${error instanceof Error ? error.message : String(error)}\n`);
});
