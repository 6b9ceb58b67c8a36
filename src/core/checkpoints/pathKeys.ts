// File names exactly as the file system has them: keys for names that are not valid UTF-8, their bytes, and how they are shown.
import { isUtf8 } from 'node:buffer';

/**
 * A key is a path below a workspace folder with "/" between segments. A segment whose bytes are valid UTF-8 is
 * that text; any other is a NUL (never part of a real name) followed by its bytes as latin1, one character per
 * byte: lossless, and no such key can equal a UTF-8 one.
 */
const RAW = '\u0000';

/** The key segment of a name read as bytes. */
export function segmentOf(name: Buffer): string {
  return isUtf8(name) ? name.toString('utf8') : RAW + name.toString('latin1');
}

/** True when some segment of the key is not valid UTF-8. */
export function isRawKey(key: string): boolean {
  return key.includes(RAW);
}

/** The key's bytes (its segments' bytes joined by "/"). */
export function keyBytes(key: string): Buffer {
  if (!isRawKey(key)) return Buffer.from(key, 'utf8');
  return Buffer.concat(key.split('/').flatMap((segment, index) => [...(index > 0 ? [Buffer.from('/')] : []), segment.startsWith(RAW) ? Buffer.from(segment.slice(1), 'latin1') : Buffer.from(segment, 'utf8')]));
}

/** The key as a person reads it: bytes that are not UTF-8 shown as U+FFFD (for messages and the session's `path`). */
export function shownKey(key: string): string {
  return isRawKey(key) ? keyBytes(key).toString('utf8') : key;
}
