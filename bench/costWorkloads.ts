// The cost replay's workloads: the two real pi sessions in their recorded shape (pi's tools named as ours) and our scripted tool-heavy session.
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
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
}

export interface CostWorkload {
  name: string;
  /** Whose shape: the recorded sessions', or ours (the scripted session written for our agent). */
  shape: 'recorded' | 'ours';
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

/**
 * The first `count` user turns of a recorded pi session exactly as recorded: no split of long turns, no added
 * closing reply. Only the model's own thinking is left out (no policy sends it back).
 */
export function recordedTurns(file: string, count = Number.MAX_SAFE_INTEGER): RecordedTurn[] {
  const lines = readFileSync(nodePath.join(PI_FIXTURES_DIR, file), 'utf8').split('\n').filter((line) => line.trim() !== '');
  const outputs = new Map<string, { text: string; isError: boolean }>();
  const messages: Json[] = [];
  for (const line of lines) {
    const entry = JSON.parse(line) as Json;
    if (entry.type !== 'message') continue;
    const message = entry.message as Json;
    if (message.role === 'toolResult') outputs.set(String(message.toolCallId), { text: textOf(message.content), isError: message.isError === true });
    else messages.push(message);
  }
  const turns: RecordedTurn[] = [];
  let current: RecordedTurn | undefined;
  for (const message of messages) {
    if (message.role === 'user') {
      if (turns.length === count) break;
      current = { user: textOf(message.content) || '(empty message)', steps: [], final: '', finalCall: false };
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

/** Every user turn of each real session (quick: the first 12) and 40 scripted tool-heavy turns (quick: 12). */
export function costWorkloads(quick: boolean): CostWorkload[] {
  const turns = quick ? 12 : Number.MAX_SAFE_INTEGER;
  return [
    { name: 'before-compaction', shape: 'recorded', turns: recordedTurns('before-compaction.jsonl', turns) },
    { name: 'large-session', shape: 'recorded', turns: recordedTurns('large-session.jsonl', turns) },
    { name: 'tool-heavy', shape: 'ours', turns: toolHeavyTurns(quick ? 12 : 40).map((turn) => ({ ...turn, finalCall: true })) },
  ];
}

/**
 * The turns with every reply fitted to what a model at this window could write (at most the output room and a
 * quarter of the usable budget, as the context scenarios fit them): the same steps for every policy.
 */
export function fittedTurns(turns: readonly RecordedTurn[], window: number, counter: TokenCounter): RecordedTurn[] {
  const thresholds = thresholdsFor(window, defaultSettings());
  return turns.map((turn) => ({ ...turn, steps: turn.steps.map((step) => withinOutput(step, thresholds.outputReserve, thresholds.usable, counter)) }));
}
