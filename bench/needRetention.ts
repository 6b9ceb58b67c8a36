// Need-based retention: of what the recorded later steps actually use and only the summarized past held, the share still there verbatim.

/** One thing that entered the session, in order: a user request, a model reply (text and call arguments), or a tool output. */
export interface TraceItem {
  kind: 'user' | 'reply' | 'output';
  text: string;
}

/** One compaction of a replay: after how many trace items it happened, and the next context split into summary and kept text. */
export interface CompactionSnapshot {
  /** Trace items sent before the compaction (the compaction sits between item position - 1 and position). */
  position: number;
  /** Text the policy wrote in place of the summarized part: the summary and whatever code appends to it. */
  summaryText: string;
  /** Text of the messages still sent verbatim after the compaction (kept turns, tool outputs, the system prompt). */
  keptText: string;
}

/** Which items a need can come back from through a tool, and what reading that item back costs. */
export interface Recovery {
  /** Tokens one read of the item costs as tool output (0: not recoverable). */
  itemTokens(position: number): number;
}

export interface NeedSample {
  /** Distinct needs at this compaction. */
  needs: number;
  /** Needs present verbatim in the summary text. */
  verbatim: number;
  /** Needs not in the summary text but readable back through a tool. */
  recoverable: number;
  /** Tokens of the items read back to recover them (each item once per compaction). */
  recoveryTokens: number;
  /** Tool calls that recovery takes (one per item read back). */
  recoveryCalls: number;
}

const PATH = /(?:[A-Za-z0-9_.@~-]+\/)+[A-Za-z0-9_.@-]*[A-Za-z0-9_@-]/g;
const FILE_NAME = /\b[A-Za-z0-9_-]+\.(?:ts|tsx|js|mjs|cjs|json|jsonl|md|py|rs|go|java|css|html|yml|yaml|toml|sh|txt|lock)\b/g;
const WORD = /[A-Za-z_$][A-Za-z0-9_$]{3,}/g;
const NUMBER = /\b\d{3,}(?:\.\d+)?\b/g;
const CODE = /\b[A-Z]{2,}\d{2,}\b/g;

/** An identifier a person would not write in prose: camelCase, PascalCase with two humps, snake_case, SCREAMING_CASE, ENOENT-like. */
function isIdentifier(word: string): boolean {
  if (/[a-z][A-Z]/.test(word)) return true;
  if (/^[A-Z][a-z0-9]+[A-Z]/.test(word)) return true;
  if (/[A-Za-z0-9]_[A-Za-z0-9]/.test(word)) return true;
  return /^[A-Z][A-Z0-9_]{4,}$/.test(word);
}

/**
 * The salient tokens of a text: file paths and file names, code identifiers, numbers of three or more digits and
 * error codes. Case-sensitive and exact: a paraphrase ("the settings file") yields none of them.
 */
export function salientTokens(text: string): Set<string> {
  const found = new Set<string>();
  for (const match of text.matchAll(PATH)) {
    const path = match[0].replace(/^[.~]+\//, '').replace(/[.]+$/, '');
    if (path.length >= 4 && /[A-Za-z]/.test(path) && !path.startsWith('http')) found.add(path);
  }
  // A path's parts are not counted again as a file name or an identifier of their own.
  const rest = text.replace(PATH, ' ');
  for (const match of rest.matchAll(FILE_NAME)) found.add(match[0]);
  const words = rest.replace(FILE_NAME, ' ');
  for (const match of words.matchAll(WORD)) if (isIdentifier(match[0])) found.add(match[0]);
  for (const match of words.matchAll(NUMBER)) found.add(match[0]);
  for (const match of words.matchAll(CODE)) found.add(match[0]);
  return found;
}

/** A command line the model ran, whole (shorter than 100 characters), from the arguments of a call. */
export function commandOf(args: string): string | null {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const command = (parsed as Record<string, unknown>).command;
    return typeof command === 'string' && command.trim().length > 0 && command.length < 100 ? command.trim() : null;
  } catch {
    return null;
  }
}

/** The text a reply puts into the session: its words and the string values of its call arguments (JSON escapes undone). */
export function replyText(text: string, calls: ReadonlyArray<{ name: string; args: string }>): string {
  const parts = [text];
  for (const call of calls) {
    try {
      const parsed: unknown = JSON.parse(call.args);
      if (typeof parsed === 'object' && parsed !== null) {
        for (const value of Object.values(parsed as Record<string, unknown>)) parts.push(typeof value === 'string' ? value : JSON.stringify(value));
      } else parts.push(call.args);
    } catch {
      parts.push(call.args);
    }
  }
  return parts.join('\n');
}

/** Whether `token` occurs in `text` as a whole token: not glued to letters, digits, `_` or `$` on either side. */
export function containsToken(text: string, token: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(token, from);
    if (at < 0) return false;
    const before = at > 0 ? text.charAt(at - 1) : '';
    const after = text.charAt(at + token.length);
    if (!/[A-Za-z0-9_$]/.test(before) && !/[A-Za-z0-9_$]/.test(after)) return true;
    from = at + 1;
  }
}

/** The trace indexed once: every token's positions, and what each reply uses. */
export class NeedIndex {
  private readonly positions = new Map<string, number[]>();
  private readonly uses: Array<Set<string>>;

  constructor(readonly items: readonly TraceItem[], commands: ReadonlyArray<string | null> = []) {
    this.uses = items.map((item, position) => {
      const tokens = salientTokens(item.text);
      const command = commands[position];
      if (command) tokens.add(command);
      // A path also counts by its trailing parts (`src/a/b.ts` names `a/b.ts` and `b.ts`), so a later reply naming the
      // file more briefly uses what this item showed.
      const indexed = new Set(tokens);
      for (const token of tokens) {
        if (!token.includes('/')) continue;
        const parts = token.split('/');
        for (let i = 1; i < parts.length; i++) if (parts[i]) indexed.add(parts.slice(i).join('/'));
      }
      for (const token of indexed) {
        const list = this.positions.get(token);
        if (list) list.push(position);
        else this.positions.set(token, [position]);
      }
      return item.kind === 'reply' ? tokens : new Set<string>();
    });
  }

  /** The latest position before `position` where `token` occurred, or -1. */
  private previous(token: string, position: number): number {
    const list = this.positions.get(token) ?? [];
    let low = 0;
    let high = list.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const at = list[middle] ?? 0;
      if (at < position) {
        found = at;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }

  /** The salient tokens the reply at `position` uses that occurred earlier in the trace (its needs as a call). */
  earlierUses(position: number): string[] {
    return [...(this.uses[position] ?? [])].filter((token) => this.previous(token, position) >= 0);
  }

  /**
   * The needs of one compaction: tokens the replies from `start` up to `end` (the end of the session, or a given end)
   * use whose latest earlier occurrence is in the summarized past, that is before `start`, and that the kept
   * text does not hold. A token the replies re-read or re-state after the compaction is no need of the summary.
   * Returns each need with the position it was last seen at before the compaction.
   */
  needs(snapshot: CompactionSnapshot, end: number): Map<string, number> {
    return new Map([...this.needUses(snapshot, end)].map(([token, use]) => [token, use.last]));
  }

  /** As `needs`, with the position of the reply that first uses each need after the compaction. */
  needUses(snapshot: CompactionSnapshot, end: number): Map<string, { last: number; use: number }> {
    const needs = new Map<string, { last: number; use: number }>();
    for (let position = snapshot.position; position < Math.min(end, this.items.length); position++) {
      for (const token of this.uses[position] ?? []) {
        if (needs.has(token)) continue;
        const last = this.previous(token, position);
        if (last < 0 || last >= snapshot.position) continue;
        if (containsToken(snapshot.keptText, token)) continue;
        needs.set(token, { last, use: position });
      }
    }
    return needs;
  }
}

/**
 * Scores every compaction of one replay, its needs counted to the end of the session (so compacting often does not
 * shorten what each compaction is judged on). A need counts as verbatim only when the summary text holds the very
 * token; otherwise as recoverable when `recovery` can read back the item it was last seen in (billed once per item).
 */
export function scoreCompactions(index: NeedIndex, snapshots: readonly CompactionSnapshot[], recovery?: Recovery, dropped: ReadonlySet<number> = new Set()): NeedSample[] {
  return snapshots.map((snapshot) => {
    // A need first used by a reply the policy never sent (a dropped step) is lost, whatever the summary holds.
    const needs = new Map<string, number>();
    let lost = 0;
    for (const [token, { last, use }] of index.needUses(snapshot, index.items.length)) {
      if (dropped.has(use)) lost++;
      else needs.set(token, last);
    }
    const sample: NeedSample = { needs: needs.size + lost, verbatim: 0, recoverable: 0, recoveryTokens: 0, recoveryCalls: 0 };
    const read = new Set<number>();
    for (const [token, position] of needs) {
      if (containsToken(snapshot.summaryText, token)) sample.verbatim++;
      else if (recovery && recovery.itemTokens(position) > 0) {
        sample.recoverable++;
        if (!read.has(position)) {
          read.add(position);
          sample.recoveryTokens += recovery.itemTokens(position);
          sample.recoveryCalls++;
        }
      }
    }
    return sample;
  });
}

/** Pooled shares over many samples: verbatim and recoverable, each of all needs; null when nothing was ever needed. */
export function pooledNeeds(samples: readonly NeedSample[]): { verbatim: number | null; recoverable: number | null; needs: number; recoveryTokens: number; recoveryCalls: number } {
  const needs = samples.reduce((sum, s) => sum + s.needs, 0);
  const verbatim = samples.reduce((sum, s) => sum + s.verbatim, 0);
  const recoverable = samples.reduce((sum, s) => sum + s.recoverable, 0);
  return {
    verbatim: needs > 0 ? verbatim / needs : null,
    recoverable: needs > 0 ? recoverable / needs : null,
    needs,
    recoveryTokens: samples.reduce((sum, s) => sum + s.recoveryTokens, 0),
    recoveryCalls: samples.reduce((sum, s) => sum + s.recoveryCalls, 0),
  };
}
