// Row 9: the longest the host is blocked by one hostile input (long runs, CJK, binary-looking output, reused ids), against a normal input of the same size.
import { buildContext } from '../src/core/context/contextBuilder';
import type { SessionEntry } from '../src/core/session/entries';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { figureOf, row, verdictOf, type BenchRow } from './benchReport';
import { collectGarbage, median, timeOnce } from './timing';
import { chainEntries } from '../test/support/sessionPathBuilder';

/** The host may be blocked at most this long by any single input. */
const TARGET_MS = 50;

interface Input {
  name: string;
  text: string;
}

/** Ordinary source-like text of `chars` characters: what a normal input of the same size costs. */
function normalText(chars: number): string {
  const line = 'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n';
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

function binaryish(chars: number): string {
  let text = '';
  for (let i = 0; i < chars; i++) text += String.fromCharCode(33 + ((i * 7919) % 94));
  return text;
}

function inputs(): Input[] {
  return [
    { name: '64 KB of one letter', text: 'a'.repeat(64 * 1024) },
    { name: '64 KB of unpunctuated CJK', text: '漢字のテスト文章'.repeat(8 * 1024) },
    { name: '24k chars of binary-looking output', text: binaryish(24_000) },
    { name: '256 KB pasted message without spaces', text: 'x9'.repeat(128 * 1024) },
  ];
}

function toolTurns(turns: number, reuse: boolean): SessionEntry[] {
  const fields: Array<Record<string, unknown>> = [];
  for (let turn = 0; turn < turns; turn++) {
    const id = reuse ? 'call_0' : `call_${turn}`;
    fields.push({ type: 'user', text: `turn ${turn}` });
    fields.push({ type: 'assistant', text: '', toolCalls: [{ id, name: 'read_file', arguments: '{}' }] });
    fields.push({ type: 'toolResult', toolCallId: id, toolName: 'read_file', isError: false, content: `out ${turn}` });
    fields.push({ type: 'assistant', text: 'ok', toolCalls: [] });
  }
  return chainEntries(fields);
}

function slowest(samples: number, fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    collectGarbage();
    times.push(timeOnce(fn));
  }
  return median(times);
}

export function pathologicalBench(counter: TokenCounter, samples: number): BenchRow[] {
  const rows: BenchRow[] = [];
  let worst = { name: '', ms: 0, ratio: 0 };
  const details: string[] = [];
  for (const input of inputs()) {
    const hostile = slowest(samples, () => counter.countText(input.text));
    const normal = slowest(samples, () => counter.countText(normalText(input.text.length)));
    const ratio = hostile / Math.max(normal, 0.001);
    details.push(`${input.name}: ${hostile.toFixed(1)} ms vs ${normal.toFixed(1)} ms normal`);
    if (hostile > worst.ms) worst = { name: input.name, ms: hostile, ratio };
  }
  const reused = slowest(Math.max(3, Math.floor(samples / 2)), () => buildContext(toolTurns(20_000, true)));
  const unique = slowest(Math.max(3, Math.floor(samples / 2)), () => buildContext(toolTurns(20_000, false)));
  details.push(`context of 20k turns reusing call_0: ${reused.toFixed(1)} ms vs ${unique.toFixed(1)} ms with unique ids (one-off, not per turn)`);
  rows.push(
    row({
      key: 'pathological.maxBlockMs',
      label: '9. longest host block by one hostile input (counting)',
      value: Math.round(worst.ms * 100) / 100,
      unit: 'ms',
      target: `< ${TARGET_MS} ms`,
      met: worst.ms < TARGET_MS,
      detail: `worst: ${worst.name}, ${worst.ratio.toFixed(2)}× a normal input of the same size; ${details.join('; ')}`,
    }),
    row({
      key: 'pathological.reusedIdsRatio',
      label: '9. context build, 20k turns reusing call_0 / unique ids',
      value: Math.round((reused / Math.max(unique, 0.001)) * 100) / 100,
      unit: '×',
      target: '≈ 1× (linear)',
      met: reused / Math.max(unique, 0.001) < 2,
      detail: `${reused.toFixed(1)} ms vs ${unique.toFixed(1)} ms `,
    }),
  );
  return rows;
}

/** Row 9's paragraph of "What limits each row", with this run's figures. */
export function pathologicalLimits(rows: readonly BenchRow[]): string {
  const figure = figureOf(rows);
  return `9. **Hostile input (${verdictOf(rows)('pathological.maxBlockMs')}: the worst input blocks ${figure('pathological.maxBlockMs')}; reused call ids ${figure('pathological.reusedIdsRatio')}):** whitespace-free runs are counted in 256-character pieces (BPE merging is quadratic in a pre-token's length), and the context builder pairs results with calls through a cursor per call id, so a session that reuses \`call_0\` on every turn builds as fast as one with unique ids.`;
}
