// Confines a session index's `file` field to a plain log name inside the sessions folder, whatever index.json says.
import * as nodePath from 'node:path';

/** Why `file` is not a session log name in the sessions folder, or undefined when it is one. */
export function sessionFileProblem(file: string): string | undefined {
  if (file.length === 0) return 'it is empty';
  if (Buffer.byteLength(file, 'utf8') > 255) return 'it is longer than a file name can be';
  if (/[\\/\0]/.test(file) || file === '.' || file === '..') return 'it is a path, not a file name in the sessions folder';
  if (nodePath.isAbsolute(file) || /^[a-zA-Z]:/.test(file)) return 'it is an absolute path';
  if (!file.endsWith('.jsonl') || file.endsWith('.quarantine.jsonl')) return 'it is not a session log (.jsonl)';
  return undefined;
}

/** The confinement error Delete, Export and Open report for a hostile index record. */
export class SessionFileOutsideError extends Error {
  constructor(file: string, why: string) {
    const shown = JSON.stringify(file.length > 120 ? `${file.slice(0, 120)}…` : file);
    super(`the session index names ${shown} as a session file, which is refused: ${why}`);
    this.name = 'SessionFileOutsideError';
  }
}

/** The absolute path of a session log named `file` in `dir`; throws SessionFileOutsideError for anything else. */
export function confinedSessionFile(dir: string, file: string): string {
  const why = sessionFileProblem(file);
  if (why !== undefined) throw new SessionFileOutsideError(file, why);
  const absolute = nodePath.join(dir, file);
  if (nodePath.dirname(absolute) !== nodePath.normalize(dir).replace(/[\\/]+$/, '')) throw new SessionFileOutsideError(file, 'it does not resolve inside the sessions folder');
  return absolute;
}
