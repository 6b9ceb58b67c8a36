// The bench ends after its output is flushed: a large JSON object read through a pipe arrives whole.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { buildSync } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/sessionTempDir';

let cleanup = (): void => undefined;
afterEach(() => cleanup());

/** Runs `source` (TypeScript importing bench/flushedExit) with stdout on a pipe that is read slowly; resolves to what was read. */
async function readThroughPipe(source: string): Promise<string> {
  const made = tempDir();
  cleanup = made.cleanup;
  const entry = nodePath.join(made.dir, 'entry.ts');
  const out = nodePath.join(made.dir, 'entry.js');
  writeFileSync(entry, source);
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'silent', nodePaths: [nodePath.resolve('node_modules')] });
  const child = spawn(process.execPath, [out], { stdio: ['ignore', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  // A reader slower than the writer (as `| node -e …` is while it starts) leaves output queued at exit.
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdout.resume();
  await new Promise((resolve) => child.on('close', resolve));
  return Buffer.concat(chunks).toString('utf8');
}

describe('bench exit', () => {
  it('hands a 300 KB JSON object written just before exiting to the pipe whole', async () => {
    const helper = nodePath.resolve('bench/flushedExit.ts').replace(/\\\\/g, '/');
    const text = await readThroughPipe(`import { exitFlushed } from ${JSON.stringify(helper)};\nprocess.stdout.write(JSON.stringify({ rows: 'x'.repeat(300_000) }) + '\\n');\nexitFlushed(0);\n`);
    expect(text.length).toBe(300_000 + 12);
    expect((JSON.parse(text) as { rows: string }).rows).toHaveLength(300_000);
  });
});
