// The value bench's workloads: recorded pi-format sessions in their recorded shape (pi's tools named as ours), with their timestamps, and our scripted tool-heavy session.
import { readdirSync, readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { gunzipSync } from 'node:zlib';
import { thresholdsFor } from '../src/core/budget/thresholds';
import { defaultSettings } from '../src/core/settings/settings';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { withinOutput, type ScenarioCall, type ScenarioTurn } from '../test/support/contextScenario';
import { PI_FIXTURES_DIR } from '../test/support/fixturePaths';
import { toolHeavyTurns } from '../test/support/scenarioWorkloads';

/** A user turn as recorded: its request, every tool-calling step, and the closing reply when the recording has one. */
export interface RecordedTurn extends ScenarioTurn {
  /** False when the recorded turn ended without a reply of its own (aborted mid-call): a peer makes no closing call then. */
  finalCall: boolean;
  /** Seconds since the session started at which each step's model call was made (then the closing reply's), as recorded. */
  times?: number[];
}

export interface CostWorkload {
  name: string;
  /**
   * The agent whose users recorded it: the unit that is held out in the leave-one-family-out table (sessions of one
   * agent share its prompts, tools and habits, so one of them tells little about another agent's).
   */
  family: string;
  /** Whose shape: the recorded sessions', or ours (the scripted session written for our agent). */
  shape: 'recorded' | 'ours';
  /** Where it came from (the session header's `source`, else the file name). */
  source?: string;
  turns: RecordedTurn[];
}

/** pi's tools and ours take the same `path` argument; our agent would have called its own. */
const PI_TOOL_NAMES: Readonly<Record<string, string>> = { read: 'read_file', write: 'write_file', edit: 'edit_file', bash: 'run_command' };

type Json = Record<string, unknown>;

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: Json) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('')
      : '';

/** A session file's text: gzip when it ends in .gz. */
function sessionText(file: string): string {
  const bytes = readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
}

/** An entry's time in milliseconds, or NaN. */
function entryTime(entry: Json): number {
  return typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN;
}

/** The session header (the first line, `type: "session"`), or an empty object. */
function sessionHeader(text: string): Json {
  try {
    const header = JSON.parse(text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length)) as Json;
    return header.type === 'session' ? header : {};
  } catch {
    return {};
  }
}

/**
 * The first `count` user turns of a recorded pi session exactly as recorded: no split of long turns, no added
 * closing reply. Only the model's own thinking is left out (no policy sends it back). A relative file name is read
 * from test/fixtures/pi-sessions; `.gz` files are gunzipped. Lines that are not JSON are skipped.
 */
export function recordedTurns(file: string, count = Number.MAX_SAFE_INTEGER): RecordedTurn[] {
  const lines = sessionText(nodePath.isAbsolute(file) ? file : nodePath.join(PI_FIXTURES_DIR, file)).split('\n').filter((line) => line.trim() !== '');
  const outputs = new Map<string, { text: string; isError: boolean }>();
  const messages: Array<{ message: Json; at: number }> = [];
  for (const line of lines) {
    let entry: Json;
    try {
      entry = JSON.parse(line) as Json;
    } catch {
      continue;
    }
    if (entry.type !== 'message' || typeof entry.message !== 'object' || entry.message === null) continue;
    const message = entry.message as Json;
    if (message.role === 'toolResult') outputs.set(String(message.toolCallId), { text: textOf(message.content), isError: message.isError === true });
    else messages.push({ message, at: entryTime(entry) });
  }
  const start = messages.find((m) => Number.isFinite(m.at))?.at ?? 0;
  let clock = 0;
  const secondsOf = (at: number): number => {
    // A missing or backwards timestamp: 10 s after the previous call (the cache model's default pace).
    clock = Number.isFinite(at) && (at - start) / 1000 >= clock ? (at - start) / 1000 : clock + 10;
    return clock;
  };
  const turns: RecordedTurn[] = [];
  let current: RecordedTurn | undefined;
  for (const { message, at } of messages) {
    if (message.role === 'user') {
      if (turns.length === count) break;
      current = { user: textOf(message.content) || '(empty message)', steps: [], final: '', finalCall: false, times: [] };
      turns.push(current);
    } else if (message.role === 'assistant' && current) {
      const parts = Array.isArray(message.content) ? (message.content as Json[]) : [];
      const text = parts.filter((part) => part.type === 'text').map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
      const calls: ScenarioCall[] = parts
        .filter((part) => part.type === 'toolCall')
        .map((part) => {
          const output = outputs.get(String(part.id)) ?? { text: '[no result: the turn was aborted]', isError: true };
          return { name: PI_TOOL_NAMES[String(part.name)] ?? String(part.name), args: JSON.stringify(part.arguments ?? {}), output: output.text, isError: output.isError };
        });
      const times = current.times ?? [];
      if (current.finalCall) times.pop();
      times.push(secondsOf(at));
      if (calls.length > 0) {
        current.steps.push({ text, calls });
        current.finalCall = false;
      } else {
        current.final = text;
        current.finalCall = true;
      }
    }
  }
  return turns;
}

/** The bench's own sessions are one family: pi's two recordings and our scripted session written in pi's shape. */
export const BENCH_FAMILY = 'pi';

/**
 * The family of a session file: the agent its header names (`provider`, as scripts/convertSessions.mjs writes it) when
 * the file name starts with it, else the file name up to its first `-` (`codex-zo-qore-…` is codex).
 */
export function sessionFamily(fileName: string, header: { provider?: unknown }): string {
  const provider = typeof header.provider === 'string' ? header.provider : '';
  if (provider !== '' && fileName.startsWith(`${provider}-`)) return provider;
  return fileName.replace(/\.jsonl(\.gz)?$/, '').split('-')[0] || fileName;
}

/** Every user turn of each real session (quick: the first 12) and 40 scripted tool-heavy turns (quick: 12). */
export function costWorkloads(quick: boolean): CostWorkload[] {
  const turns = quick ? 12 : Number.MAX_SAFE_INTEGER;
  return [
    { name: 'before-compaction', family: BENCH_FAMILY, shape: 'recorded', source: 'badlogic/pi-mono test fixture', turns: recordedTurns('before-compaction.jsonl', turns) },
    { name: 'large-session', family: BENCH_FAMILY, shape: 'recorded', source: 'badlogic/pi-mono test fixture', turns: recordedTurns('large-session.jsonl', turns) },
    { name: 'tool-heavy', family: BENCH_FAMILY, shape: 'ours', turns: toolHeavyTurns(quick ? 12 : 40).map((turn) => ({ ...turn, finalCall: true })) },
  ];
}

/** Model calls a workload's turns make (steps plus closing replies). */
export function modelCalls(turns: readonly RecordedTurn[]): number {
  return turns.reduce((sum, turn) => sum + turn.steps.length + (turn.finalCall ? 1 : 0), 0);
}

/**
 * Every pi-format session (`.jsonl`, `.jsonl.gz`) in a folder, in name order. `quick` keeps each session's first
 * 40 model calls' turns (a single-task session is one turn: its steps are cut at 40). A folder with no session
 * file is an error that names it.
 */
export function folderWorkloads(given: string, quick: boolean): CostWorkload[] {
  const folder = nodePath.resolve(given);
  const files = readdirSync(folder).filter((name) => /\.jsonl(\.gz)?$/.test(name)).sort();
  if (files.length === 0) throw new Error(`No pi-format session files (.jsonl or .jsonl.gz) in ${folder}.`);
  return files.map((name) => {
    const path = nodePath.join(folder, name);
    let turns = recordedTurns(path);
    if (quick) turns = firstCalls(turns, 40);
    const header = sessionHeader(sessionText(path));
    return { name: name.replace(/\.jsonl(\.gz)?$/, ''), family: sessionFamily(name, header), shape: 'recorded' as const, source: typeof header.source === 'string' ? header.source : name, turns };
  });
}

/** The turns holding the first `limit` model calls (the last turn cut short, without a closing reply). */
function firstCalls(turns: readonly RecordedTurn[], limit: number): RecordedTurn[] {
  const out: RecordedTurn[] = [];
  let left = limit;
  for (const turn of turns) {
    if (left <= 0) break;
    const calls = turn.steps.length + (turn.finalCall ? 1 : 0);
    if (calls <= left) out.push(turn);
    else out.push({ ...turn, steps: turn.steps.slice(0, left), final: '', finalCall: false, times: turn.times?.slice(0, left) });
    left -= calls;
  }
  return out;
}

/** The public sessions committed under test/fixtures/public-sessions (recorded by other agents' users). */
export const PUBLIC_SESSIONS_DIR = nodePath.join(nodePath.dirname(PI_FIXTURES_DIR), 'public-sessions');

/**
 * The turns with every reply, the closing one too, fitted to what a model at this window could write (at most the
 * output room and a quarter of the usable budget, as the context scenarios fit them): the same replies for every policy.
 */
export function fittedTurns(turns: readonly RecordedTurn[], window: number, counter: TokenCounter): RecordedTurn[] {
  const thresholds = thresholdsFor(window, defaultSettings());
  const fit = (step: ScenarioTurn['steps'][number]) => withinOutput(step, thresholds.outputReserve, thresholds.usable, counter);
  return turns.map((turn) => ({ ...turn, steps: turn.steps.map(fit), final: fit({ text: turn.final, calls: [] }).text }));
}
