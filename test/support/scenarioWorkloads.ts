// Workloads for the context scenarios: the real pi sessions as turns, and a seeded, tool-heavy coding session.
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import type { ScenarioCall, ScenarioStep, ScenarioTurn } from './contextScenario';
import { PI_FIXTURES_DIR } from './fixturePaths';

type Json = Record<string, unknown>;

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part === 'object' && part !== null && (part as Json).type === 'text' ? stringOf((part as Json).text) : ''))
    .join('');
}

/** The first `count` user turns of a real pi session: its requests, the model's calls and the outputs they got. */
export function piTurns(file: string, count: number): ScenarioTurn[] {
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
  const turns: ScenarioTurn[] = [];
  let current: ScenarioTurn | undefined;
  for (const message of messages) {
    if (message.role === 'user') {
      if (turns.length === count) break;
      current = { user: textOf(message.content) || '(empty message)', steps: [], final: 'Done.' };
      turns.push(current);
    } else if (message.role === 'assistant' && current) {
      const parts = Array.isArray(message.content) ? (message.content as Json[]) : [];
      const text = parts.filter((part) => part.type === 'text').map((part) => stringOf(part.text)).join('');
      const calls: ScenarioCall[] = parts
        .filter((part) => part.type === 'toolCall')
        .map((part) => {
          const output = outputs.get(String(part.id)) ?? { text: '[no result: the turn was aborted]', isError: true };
          return { name: String(part.name), args: JSON.stringify(part.arguments ?? {}), output: output.text, isError: output.isError };
        });
      if (calls.length > 0) current.steps.push({ text, calls });
      else if (text.trim() !== '') current.final = text;
    }
  }
  return turns.flatMap(withinStepLimit);
}

/** The agent stops a request after 50 model calls; a longer recorded turn becomes the turn plus "continue" turns. */
const STEPS_PER_TURN = 40;

function withinStepLimit(turn: ScenarioTurn): ScenarioTurn[] {
  if (turn.steps.length <= STEPS_PER_TURN) return [turn];
  const parts: ScenarioTurn[] = [];
  for (let start = 0; start < turn.steps.length; start += STEPS_PER_TURN) {
    const last = start + STEPS_PER_TURN >= turn.steps.length;
    parts.push({ user: start === 0 ? turn.user : 'Please continue.', steps: turn.steps.slice(start, start + STEPS_PER_TURN), final: last ? turn.final : 'Continuing in the next message.' });
  }
  return parts;
}

/** Park–Miller: the same session on every machine. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48_271) % 2_147_483_647;
    return state / 2_147_483_647;
  };
}

function codeFile(random: () => number, lines: number, name: string): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    const kind = random();
    if (kind < 0.1) out.push(`export function ${name}Step${i}(input: string[]): number {`);
    else if (kind < 0.2) out.push('}');
    else if (kind < 0.3) out.push(`  // ${name}: keep the order stable, callers depend on it (line ${i})`);
    else out.push(`  const value${i} = input.filter((item) => item.length > ${Math.floor(random() * 40)}).map((item) => item.trim());`);
  }
  return out.join('\n');
}

function testLog(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(random() < 0.05 ? `FAIL src/module${i % 7}.test.ts > handles case ${i}: expected ${i} to equal ${i + 1}` : `PASS src/module${i % 7}.test.ts > case ${i} (${Math.floor(random() * 90)} ms)`);
  }
  return out.join('\n');
}

/** A coding session heavy in tool output: each turn reads files, runs tests and searches, some outputs far past the cap. */
export function toolHeavyTurns(count: number, seed = 7): ScenarioTurn[] {
  const random = seeded(seed);
  const turns: ScenarioTurn[] = [];
  for (let t = 0; t < count; t++) {
    const steps: ScenarioStep[] = [];
    const stepCount = 2 + Math.floor(random() * 4);
    for (let s = 0; s < stepCount; s++) {
      const pick = random();
      const file = `src/module${(t * 3 + s) % 11}.ts`;
      const lines = random() < 0.15 ? 1500 : 40 + Math.floor(random() * 260);
      const call: ScenarioCall =
        pick < 0.5
          ? { name: 'read_file', args: JSON.stringify({ path: file }), output: codeFile(random, lines, `module${s}`) }
          : pick < 0.8
            ? { name: 'run_command', args: JSON.stringify({ command: 'npm test' }), output: testLog(random, lines) }
            : { name: 'edit_file', args: JSON.stringify({ path: file, oldText: 'const value1 =', newText: `const value1 = /* turn ${t} */` }), output: `Edited ${file}.` };
      steps.push({ text: s === 0 ? `Let me look at ${file} for request ${t}.` : '', calls: [call] });
    }
    turns.push({ user: `Request ${t}: the tests for module${t % 11} fail after the last change; find out why and fix it.`, steps, final: `Fixed request ${t}: module${t % 11} now passes its tests.` });
  }
  return turns;
}
