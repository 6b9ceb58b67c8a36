// One setting's raw value checked against its spec (kind, bounds, allowed values): the value to use and a warning for what was rejected.

type NumberSpec = { kind: 'number'; default: number; minimum: number; maximum: number };
type BooleanSpec = { kind: 'boolean'; default: boolean };
type StringSpec = { kind: 'string'; default: string };
type EnumSpec = { kind: 'enum'; default: string; values: readonly string[] };
type StringArraySpec = { kind: 'stringArray'; default: string[] };
type StringMapSpec = { kind: 'stringMap'; default: Record<string, string> };
type NumberMapSpec = { kind: 'numberMap'; default: Record<string, number>; minimum: number; maximum: number };
/** What a setting accepts: its kind, default and bounds. */
export type SettingSpec = NumberSpec | BooleanSpec | StringSpec | EnumSpec | StringArraySpec | StringMapSpec | NumberMapSpec;

/** Configuration section; every key below is `${SETTINGS_SECTION}.${key}` in the manifest. */
export const SETTINGS_SECTION = 'compactionAgent';

/** A value that was rejected, and what is used instead. */
export interface SettingWarning {
  key: string;
  message: string;
}

/** A value as the configuration gave it, not yet checked. */
export type RawValue = unknown;

/** The value of one setting: the raw value when it fits the spec, else the default (a number clamped), with a warning. */
export function parseValue(key: string, spec: SettingSpec, raw: RawValue, warnings: SettingWarning[]): unknown {
  if (raw === undefined || raw === null) return spec.default;
  const reject = (why: string): unknown => {
    const used = JSON.stringify(spec.default);
    warnings.push({ key, message: `${SETTINGS_SECTION}.${key}: ${why} (got ${describe(raw)}); using ${used}.` });
    return spec.default;
  };
  switch (spec.kind) {
    case 'number': {
      if (typeof raw !== 'number' || !Number.isFinite(raw)) return reject('expected a number');
      if (raw < spec.minimum || raw > spec.maximum) {
        const clamped = Math.min(spec.maximum, Math.max(spec.minimum, raw));
        warnings.push({
          key,
          message: `${SETTINGS_SECTION}.${key}: ${raw} is outside ${spec.minimum}..${spec.maximum}; using ${clamped}.`,
        });
        return Math.round(clamped);
      }
      return Math.round(raw);
    }
    case 'boolean':
      return typeof raw === 'boolean' ? raw : reject('expected true or false');
    case 'string':
      return typeof raw === 'string' ? raw.trim() : reject('expected a string');
    case 'enum':
      return typeof raw === 'string' && spec.values.includes(raw)
        ? raw
        : reject(`expected one of ${spec.values.join(', ')}`);
    case 'stringArray':
      return Array.isArray(raw) && raw.every((item) => typeof item === 'string')
        ? raw.map((item: string) => item.trim()).filter((item: string) => item.length > 0)
        : reject('expected a list of strings');
    case 'stringMap':
      return isStringMap(raw) ? { ...raw } : reject('expected an object of string values');
    case 'numberMap':
      return numberMap(key, spec, raw, warnings) ?? reject('expected an object of numbers');
  }
}

/** Keeps the entries that are whole numbers in range; each one dropped gets its own warning. */
function numberMap(key: string, spec: NumberMapSpec, raw: RawValue, warnings: SettingWarning[]): Record<string, number> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const kept: Record<string, number> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= spec.minimum && value <= spec.maximum) kept[name] = value;
    else warnings.push({ key, message: `${SETTINGS_SECTION}.${key}: "${name}" needs a whole number from ${spec.minimum} to ${spec.maximum} (got ${describe(value)}); ignored.` });
  }
  return kept;
}

function isStringMap(raw: RawValue): raw is Record<string, string> {
  return (
    typeof raw === 'object' &&
    raw !== null &&
    !Array.isArray(raw) &&
    Object.values(raw).every((value) => typeof value === 'string')
  );
}

function describe(raw: RawValue): string {
  const text = JSON.stringify(raw) ?? String(raw);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
