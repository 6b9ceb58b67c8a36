// Names for the temp file a write goes through: beside the target, unique, and short enough for any legal target name.
import { randomBytes } from 'node:crypto';
import * as nodePath from 'node:path';

/** Bytes of the target's name kept in the temp name (file systems allow 255 bytes per name; the rest is the tag). */
const KEPT_NAME_BYTES = 120;

/** The first `limit` UTF-8 bytes of `name`, never splitting a character. */
function headBytes(name: string, limit: number): string {
  if (Buffer.byteLength(name, 'utf8') <= limit) return name;
  let kept = '';
  let bytes = 0;
  for (const char of name) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > limit) break;
    kept += char;
    bytes += size;
  }
  return kept;
}

/**
 * A temp path in `target`'s folder: a dot, at most 120 bytes of the target's name, a random tag and `suffix`.
 * A name of 232–255 bytes (legal) would otherwise overflow the 255-byte limit once the tag is added.
 */
export function tempPathBeside(target: string, suffix: string): string {
  const name = headBytes(nodePath.basename(target), KEPT_NAME_BYTES);
  return nodePath.join(nodePath.dirname(target), `.${name}.${randomBytes(6).toString('hex')}.${suffix}`);
}
