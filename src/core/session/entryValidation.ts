// Validation of parsed log lines: every entry kind's required fields, so a loaded tree is well-typed.
import type { OpaqueEntry, SessionEntry, SessionHeader } from './entries';
import { isReportedCost } from './entries';

type Json = Record<string, unknown>;
type Check = (value: unknown) => boolean;

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isBoolean: Check = (value) => typeof value === 'boolean';
const isStringArray: Check = (value) => Array.isArray(value) && value.every(isString);
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const isBlobRef: Check = (value) => isObject(value) && isString(value.sha256) && isNumber(value.bytes) && isNumber(value.chars);
const isToolCall: Check = (value) => isObject(value) && isString(value.id) && isString(value.name) && isString(value.arguments);
const isUsage: Check = (value) =>
  isObject(value) && isNumber(value.promptTokens) && isNumber(value.completionTokens) && (value.cost === undefined || isReportedCost(value.cost));
const isImage: Check = (value) => isObject(value) && isBlobRef(value.blob) && isString(value.mimeType) && isString(value.name) && optional(isNumber)(value.width) && optional(isNumber)(value.height);
const isAttachment: Check = (value) => isObject(value) && isString(value.label) && isString(value.text);
/** A file's permission bits: an integer from 0 to 0o7777. */
const isPermissionBits: Check = (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0o7777;
const isFileChange: Check = (value) =>
  isObject(value) &&
  isString(value.path) &&
  isString(value.absolute) &&
  (value.before === undefined || value.before === null || isBlobRef(value.before)) &&
  (value.after === null || isBlobRef(value.after)) &&
  optional(isBoolean)(value.exact) &&
  optional(isPermissionBits)(value.beforeMode) &&
  optional(isPermissionBits)(value.afterMode) &&
  optional((bytes) => isString(bytes) && /^[A-Za-z0-9+/]*={0,2}$/.test(bytes) && bytes.length <= 8192)(value.absoluteBytes);
const isFileChanges: Check = (value) => Array.isArray(value) && value.every(isFileChange);
/** Most model calls and tokens one sub-task's usage may claim: a log saying more is corrupt, not a bill. */
const MAX_SUBAGENT_CALLS = 100_000;
const MAX_SUBAGENT_TOKENS = 100_000_000_000;
const isAmount =
  (max: number): Check =>
  (value) =>
    isNumber(value) && (value as number) >= 0 && (value as number) <= max;
const isSubagentLink: Check = (value) =>
  isObject(value) &&
  isString(value.sessionId) &&
  isAmount(MAX_SUBAGENT_CALLS)(value.calls) &&
  isAmount(MAX_SUBAGENT_TOKENS)(value.promptTokens) &&
  isAmount(MAX_SUBAGENT_TOKENS)(value.completionTokens) &&
  (value.cost === undefined || isReportedCost(value.cost));
const isLedger: Check = (value) => isObject(value) && isStringArray(value.read) && isStringArray(value.modified);
const isOneOf =
  (...values: string[]): Check =>
  (value) =>
    typeof value === 'string' && values.includes(value);

/** The kinds this version writes; any other `type` is kept as an opaque entry. */
type KnownType = Exclude<SessionEntry['type'], 'opaque'>;

const FIELDS: Record<KnownType, Record<string, Check>> = {
  user: { text: isString, synthetic: optional(isBoolean), images: optional((value) => Array.isArray(value) && value.every(isImage)), attachments: optional((value) => Array.isArray(value) && value.every(isAttachment)) },
  assistant: {
    text: isString,
    toolCalls: (value) => Array.isArray(value) && value.every(isToolCall),
    reasoning: optional(isString),
    model: optional(isString),
    usage: optional(isUsage),
    stopReason: optional(isOneOf('stop', 'length', 'toolCalls', 'aborted', 'error', 'contentFilter')),
    error: optional(isString),
  },
  toolResult: { toolCallId: isString, toolName: isString, isError: isBoolean, content: isString, blob: optional(isBlobRef), fileChanges: optional(isFileChanges), checkpointGap: optional(isString), subagent: optional(isSubagentLink) },
  compaction: {
    summary: isString,
    firstKeptEntryId: (value) => value === null || isString(value),
    turnPrefixSummary: optional(isString),
    tokensBefore: isNumber,
    tokensAfter: isNumber,
    files: isLedger,
    edited: isBoolean,
    auto: isBoolean,
    handoffFrom: optional((value) => isObject(value) && isString(value.sessionId) && (value.leafId === null || isString(value.leafId)) && isString(value.title)),
  },
  prune: { toolResultIds: isStringArray, tokensFreed: isNumber, reason: isOneOf('auto', 'manual') },
  drop: { entryIds: isStringArray, dropped: isBoolean, label: isString, tokens: isNumber },
  pin: { targetId: isString, pinned: isBoolean },
  modelChange: { model: isString, provider: optional(isString) },
  settingsChange: { changes: isObject },
  label: { targetId: isString, label: isString },
  leaf: { targetId: isString, reason: isOneOf('restore', 'switch') },
  fileRestore: { targetId: isString, changes: isFileChanges },
};

/** FIELDS as lists, made once: listing a kind's fields for every entry read was a tenth of a session's open. */
const CHECKS = new Map<string, ReadonlyArray<[string, Check]>>(Object.entries(FIELDS).map(([type, fields]) => [type, Object.entries(fields)]));

/**
 * Returns the entry when the value is a well-formed entry of a known kind, or an opaque entry when its kind is
 * one this version does not know but it has the envelope every entry has (id, parentId); else a reason (a string: the parser asks once per line, so no wrapper object is made).
 */
export function checkEntry(value: unknown): SessionEntry | string {
  if (!isObject(value)) return 'not a JSON object';
  const type = value.type;
  if (typeof type !== 'string') return 'entry without a type';
  if (!isString(value.id) || value.id === '') return isKnown(type) ? 'missing id' : `unknown entry type ${JSON.stringify(type)} without an id`;
  if (!(value.parentId === null || isString(value.parentId))) return 'parentId must be a string or null';
  if (value.copyOf !== undefined && !isString(value.copyOf)) return 'copyOf must be a string';
  if (!isKnown(type)) return opaqueEntry(value, value.id, value.parentId);
  if (!isString(value.timestamp)) return 'missing timestamp';
  const entry = withoutBadCarriedRequest(withoutBadSnapshots(value));
  const checks = CHECKS.get(type) ?? [];
  for (let at = 0; at < checks.length; at++) {
    const [field, check] = checks[at] as [string, Check];
    if (!check(entry[field])) return `${type} entry has an invalid "${field}"`;
  }
  return entry as unknown as SessionEntry;
}

/** checkEntry's answer as a tagged object. */
export function validateEntry(value: unknown): { entry: SessionEntry } | { error: string } {
  const checked = checkEntry(value);
  return typeof checked === 'string' ? { error: checked } : { entry: checked };
}

/**
 * A tool result whose file snapshots or sub-task usage are malformed keeps its output (what the model saw matters
 * more); only those are dropped, so the changes are not offered for restore and the usage is not counted.
 */
function withoutBadSnapshots(value: Json): Json {
  if (value.type !== 'toolResult') return value;
  let kept = value;
  if (kept.fileChanges !== undefined && !isFileChanges(kept.fileChanges)) {
    const { fileChanges: _dropped, ...rest } = kept;
    kept = rest;
  }
  // A sub-task's usage out of bounds (negative, absurd) is dropped too: it is added to the parent's figures.
  if (kept.subagent !== undefined && !isSubagentLink(kept.subagent)) {
    const { subagent: _dropped, ...rest } = kept;
    kept = rest;
  }
  return kept;
}

/**
 * A compaction whose recorded carried request is malformed keeps its summary: the field is dropped, and the context
 * builder derives the carried request from the cut, as for logs written before the field existed.
 */
function withoutBadCarriedRequest(value: Json): Json {
  if (value.type !== 'compaction' || value.carriedRequestId === undefined || value.carriedRequestId === null || isString(value.carriedRequestId)) return value;
  const { carriedRequestId: _dropped, ...rest } = value;
  return rest;
}

/** Own keys only: "toString" or "__proto__" must not pass as a kind. */
function isKnown(type: string): type is KnownType {
  return Object.hasOwn(FIELDS, type);
}

function opaqueEntry(line: Json, id: string, parentId: string | null): OpaqueEntry {
  return { type: 'opaque', id, parentId, timestamp: isString(line.timestamp) ? line.timestamp : '', line };
}

/** Returns the header when the value is a session header line (any version), else a reason. */
export function validateHeader(value: unknown): { header: SessionHeader } | { error: string } {
  if (!isObject(value) || value.type !== 'session') return { error: 'the first line is not a session header' };
  if (!isNumber(value.version) || !Number.isInteger(value.version)) return { error: 'the session header has no schema version' };
  if (!isString(value.id) || !isString(value.timestamp)) return { error: 'the session header lacks id or timestamp' };
  // A sub-task's link to its parent is kept only when well formed (it is a hint for the Sessions list, never trusted further).
  if (value.parent !== undefined && !(isObject(value.parent) && isString(value.parent.sessionId) && isString(value.parent.toolCallId))) {
    const { parent: _dropped, ...rest } = value;
    return { header: rest as unknown as SessionHeader };
  }
  return { header: value as unknown as SessionHeader };
}
