// Reads a log's quarantine file back as the exact bytes of each set-aside line, to check nothing was altered.
import { readFileSync, existsSync } from 'node:fs';
import { quarantinePath } from '../../src/core/session/quarantine';

export interface QuarantinedLine {
  raw: Buffer;
  reason: string;
  line: number;
}

function parseRecord(line: string): QuarantinedLine | undefined {
  try {
    const record = JSON.parse(line) as { text: string; base64?: string; reason: string; line: number };
    const raw = record.base64 !== undefined ? Buffer.from(record.base64, 'base64') : Buffer.from(record.text, 'utf8');
    return { raw, reason: record.reason, line: record.line };
  } catch {
    return undefined;
  }
}

/** Lines of the quarantine file that are not readable records (e.g. a record torn by a full disk, joined to the next). */
export function unreadableQuarantineLines(logFile: string): number {
  const path = quarantinePath(logFile);
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && parseRecord(line) === undefined).length;
}

/** Every readable record of the quarantine file beside `logFile` (empty when there is none). */
export function quarantinedLines(logFile: string): QuarantinedLine[] {
  const path = quarantinePath(logFile);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => parseRecord(line) ?? []);
}
