// The pi-format session entries every converter writes (messages, tool calls, tool results), and the helpers they share.

export type Json = Record<string, unknown>;

/** A pi tool call: pi's names and arguments for read, edit, write and bash; other tools keep theirs. */
export interface PiToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Json;
}

export type PiPart = { type: 'text'; text: string } | PiToolCall;

export type PiMessage =
  | { role: 'user'; content: PiPart[]; timestamp: number }
  | { role: 'assistant'; content: PiPart[]; model: string; timestamp: number }
  | { role: 'toolResult'; toolCallId: string; toolName?: string; content: PiPart[]; isError: boolean; timestamp: number };

export interface PiEntry {
  type: 'message';
  timestamp: string;
  message: PiMessage;
}

export interface ConvertedSession {
  cwd: string;
  model: string;
  /** When the session started, in milliseconds. */
  start: number;
  entries: PiEntry[];
  /** Lines (or blocks) of the input that could not be read (left out, and counted so the README can say so). */
  skippedLines: number;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const str = (value: unknown): string => (typeof value === 'string' ? value : '');
export const text = (value: string): PiPart => ({ type: 'text', text: value });

export function entry(message: PiMessage): PiEntry {
  return { type: 'message', timestamp: iso(message.timestamp), message };
}

/** Seconds between model calls when a format records no time: the prefix-cache meter's default pace. */
export const UNRECORDED_CALL_SPACING_MS = 10_000;

/** A message read from a format, before its time is settled: `at` is the recorded time in milliseconds, if any. */
export type TimedMessage = { message: PiMessage; at?: number };

/**
 * Settles each message's time: a recorded time is kept when it does not go backwards; a model call without one comes
 * 10 s after the previous message (never past the next recorded time); anything else without one takes the previous
 * message's time. Messages before the first recorded time take that time; with none at all, the first is at `start`.
 */
export function settleTimes(messages: readonly TimedMessage[], start: number): PiEntry[] {
  const next: Array<number | undefined> = new Array<number | undefined>(messages.length);
  let upcoming: number | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    next[i] = upcoming;
    const at = messages[i]?.at;
    if (at !== undefined) upcoming = at;
  }
  let clock: number | undefined;
  return messages.map(({ message, at }, i) => {
    if (at !== undefined && (clock === undefined || at >= clock)) clock = at;
    else if (clock === undefined) clock = next[i] ?? start;
    else if (message.role === 'assistant') clock = Math.max(clock, Math.min(clock + UNRECORDED_CALL_SPACING_MS, next[i] ?? Number.POSITIVE_INFINITY));
    message.timestamp = clock;
    return entry(message);
  });
}
