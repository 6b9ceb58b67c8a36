// The quarantine file beside a log: damaged lines are appended here, byte for byte, instead of being lost.
import { isUtf8 } from 'node:buffer';
import * as nodePath from 'node:path';
import type { FileIo } from '../storage/fileIo';
import { errorCode } from '../storage/fileIo';
import type { BadLine } from './logParser';

export function quarantinePath(logFile: string): string {
  const dir = nodePath.dirname(logFile);
  const base = nodePath.basename(logFile).replace(/\.jsonl$/, '');
  return nodePath.join(dir, `${base}.quarantine.jsonl`);
}

/** Records are appended in batches of about this many characters, so a file of damaged lines is never held twice over. */
const BATCH_CHARS = 1024 * 1024;

function record(bad: BadLine, logFile: string, now: Date): string {
  const text = bad.raw.toString('utf8');
  return JSON.stringify({
    quarantinedAt: now.toISOString(),
    file: nodePath.basename(logFile),
    line: bad.line,
    offset: bad.offset,
    reason: bad.reason,
    text,
    // Bytes that are not valid UTF-8 would not round-trip through `text`.
    ...(isUtf8(bad.raw) ? {} : { base64: bad.raw.toString('base64') }),
  });
}

/**
 * Appends one record per bad line (durably) before the log is cleaned, so a crash in between loses nothing.
 * Many lines go in batches: a crash between two leaves the later lines in the log, quarantined on the next open.
 */
export async function quarantineLines(io: FileIo, logFile: string, lines: readonly BadLine[], now: Date): Promise<void> {
  if (lines.length === 0) return;
  const file = quarantinePath(logFile);
  await dropTornRecord(io, file);
  let batch: string[] = [];
  let size = 0;
  for (const bad of lines) {
    const line = record(bad, logFile, now);
    batch.push(line);
    size += line.length + 1;
    if (size < BATCH_CHARS) continue;
    await io.appendDurable(file, `${batch.join('\n')}\n`);
    batch = [];
    size = 0;
  }
  if (batch.length > 0) await io.appendDurable(file, `${batch.join('\n')}\n`);
}

/**
 * A record cut short by an earlier failed write (full disk) is only a partial copy: quarantine is written
 * before the log is cleaned, so its line is still in the log and is quarantined again now. Cutting the
 * fragment keeps every record readable and loses nothing.
 */
async function dropTornRecord(io: FileIo, file: string): Promise<void> {
  let bytes: Buffer;
  try {
    bytes = await io.readFile(file);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return;
  await io.truncate(file, bytes.lastIndexOf(0x0a) + 1);
}

/** Number of records in the quarantine file (0 when there is none). */
export async function countQuarantined(io: FileIo, logFile: string): Promise<number> {
  try {
    const text = (await io.readFile(quarantinePath(logFile))).toString('utf8');
    return text.split('\n').filter((line) => line.trim() !== '').length;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 0;
    throw error;
  }
}
