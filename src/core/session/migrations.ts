// Schema migrations of session lines: one function per version step, applied on load.
import { SCHEMA_VERSION } from './entries';

export type JsonRecord = Record<string, unknown>;

/** Migrates one line (header or entry) from version `from` to `from + 1`. */
export type Migration = (line: JsonRecord) => JsonRecord;

/**
 * MIGRATIONS[v] upgrades a version-v line to v+1. Version 1 is the first released schema,
 * so there is nothing to migrate yet; the next schema change adds MIGRATIONS[1].
 */
export const MIGRATIONS: Readonly<Record<number, Migration>> = {};

export class SchemaVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaVersionError';
  }
}

/** Throws a clear error for versions this build cannot read (from the future, or with no migration path). */
export function checkVersion(version: number, migrations: Readonly<Record<number, Migration>> = MIGRATIONS, current = SCHEMA_VERSION): void {
  if (version > current) {
    throw new SchemaVersionError(`session schema version ${version} is newer than this version supports (${current}); update the extension`);
  }
  for (let v = version; v < current; v++) {
    if (!migrations[v]) throw new SchemaVersionError(`no migration from session schema version ${v} to ${v + 1}`);
  }
}

/** Applies every step from `version` up to the current schema. */
export function migrateLine(
  line: JsonRecord,
  version: number,
  migrations: Readonly<Record<number, Migration>> = MIGRATIONS,
  current = SCHEMA_VERSION,
): JsonRecord {
  let result = line;
  for (let v = version; v < current; v++) {
    const step = migrations[v];
    if (!step) throw new SchemaVersionError(`no migration from session schema version ${v} to ${v + 1}`);
    result = step(result);
  }
  return result;
}
