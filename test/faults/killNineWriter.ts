// Child process of the kill-9 family: creates a session and appends the seed's workload, printing each id once committed.
import { writeSync } from 'node:fs';
import { SessionLog } from '../../src/core/session/sessionLog';
import { plannedEntry } from './writerWorkload';

/** A blocking write(2) on fd 1: once it returns the bytes are in the pipe, where a SIGKILL cannot take them back. */
function report(line: string): void {
  const data = Buffer.from(`${line}\n`, 'utf8');
  let written = 0;
  while (written < data.length) {
    try {
      written += writeSync(1, data, written);
    } catch (error) {
      // A non-blocking pipe that is momentarily full: try again.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

async function main(): Promise<void> {
  const [file, seedText, countText] = process.argv.slice(2);
  if (file === undefined || seedText === undefined) throw new Error('usage: killNineWriter <file> <seed> [count]');
  const seed = Number(seedText);
  const count = Number(countText ?? 400);
  const log = await SessionLog.create(file, { id: `kill9-${seed}`, title: `kill-9 run ${seed}` });
  report('ready');
  for (let index = 0; index < count; index++) {
    const entry = plannedEntry(seed, index);
    await log.append(entry);
    report(entry.id);
  }
  await log.close();
  report('done');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 2;
});
