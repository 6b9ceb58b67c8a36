// Row 2: the cost of one new turn (user + assistant with a tool call + tool result) on 10 … 10,000-entry sessions, old counts cached.
import { measureContext } from '../src/core/budget/meter';
import { defaultSettings } from '../src/core/settings/settings';
import { SessionTree } from '../src/core/session/sessionTree';
import { CountCache } from '../src/core/tokens/countCache';
import { countPath, entryMessage, type EntryCounts } from '../src/core/tokens/entryTokens';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import type { MessageEntry, SessionEntry } from '../src/core/session/entries';
import { figureOf, ms, row, verdictOf, type FamilyResult } from './benchReport';
import { median, timeOnce } from './timing';
import { freshTurn, importedEntries, realTurn, synthesizePath, type RealTurn } from './workloads';

const SETTINGS = defaultSettings();

export const INCREMENTAL_SIZES = [10, 100, 1_000, 10_000] as const;
/** A turn on 1,000× the entries may cost this much more beyond tokenizing (sub-0.1 ms figures are noisy). */
const FLAT_LIMIT = 3;

interface TurnSample {
  tokenizeMs: number;
  /** Append to the tree and walk root→leaf. */
  pathMs: number;
  /** countPath: cached lookups of old entries + tokenizing the new ones. */
  countMs: number;
  /** The meter's measurement: the context counts, budget and prune plan (countPath is a cache hit by then). */
  budgetMs: number;
}

/** One turn: tokenize its three messages alone, then append them and recompute the budget through the real code. */
function sampleTurn(counter: TokenCounter, tree: SessionTree, cache: CountCache, baseLeaf: string, turn: RealTurn, tag: string): TurnSample {
  const entries: MessageEntry[] = freshTurn(turn, tag, baseLeaf);
  const tokenizeMs = timeOnce(() => {
    for (const entry of entries) counter.countMessage(entryMessage(entry));
  });
  let path: readonly SessionEntry[] = [];
  let counts: EntryCounts | undefined;
  // Each turn forks from the same base leaf, so every sample sees a path of exactly size + 3 entries.
  const pathMs = timeOnce(() => {
    for (const entry of entries) tree.add(entry);
    path = tree.pathTo(tree.leafId);
  });
  const countMs = timeOnce(() => {
    counts = countPath(path, counter, cache);
  });
  const budgetMs = timeOnce(() => {
    if (!counts) return;
    measureContext(path, { counter, cache, settings: SETTINGS, contextWindow: 200_000, systemRole: 'system', tools: [] });
  });
  return { tokenizeMs, pathMs, countMs, budgetMs };
}

interface SizeResult {
  size: number;
  beyond: number;
  total: number;
  tokenize: number;
  path: number;
  count: number;
  budget: number;
}

function measureSize(counter: TokenCounter, size: number, turn: RealTurn, iterations: number): SizeResult {
  const source = importedEntries('large-session.jsonl');
  const base = synthesizePath(source, size);
  const tree = new SessionTree(base);
  const cache = new CountCache();
  countPath(base, counter, cache);
  const baseLeaf = base[base.length - 1]?.id ?? null;
  if (baseLeaf === null) throw new Error('empty synthetic session');
  const samples: TurnSample[] = [];
  for (let i = 0; i < iterations + 5; i++) {
    const sample = sampleTurn(counter, tree, cache, baseLeaf, turn, `t${size}-${i}`);
    if (i >= 5) samples.push(sample);
  }
  const total = (s: TurnSample): number => s.pathMs + s.countMs + s.budgetMs;
  return {
    size,
    beyond: median(samples.map((s) => total(s) - s.tokenizeMs)),
    total: median(samples.map(total)),
    tokenize: median(samples.map((s) => s.tokenizeMs)),
    path: median(samples.map((s) => s.pathMs)),
    count: median(samples.map((s) => s.countMs)),
    budget: median(samples.map((s) => s.budgetMs)),
  };
}

export function incrementalBench(counter: TokenCounter, iterations: number): FamilyResult {
  const turn = realTurn(importedEntries('large-session.jsonl'));
  const results = INCREMENTAL_SIZES.map((size) => measureSize(counter, size, turn, iterations));
  const rows = results.map((result) =>
    row({
      key: `incremental.beyondTokenizeMs.${result.size}`,
      label: `2. one new turn on ${result.size.toLocaleString('en-US')} entries: time beyond tokenizing it`,
      value: result.beyond,
      unit: 'ms',
      target: '≤ 1 ms',
      met: result.beyond <= 1,
      detail: `total ${ms(result.total)} = append+path walk ${ms(result.path)} + countPath ${ms(result.count)} (tokenizing the 3 new messages alone: ${ms(result.tokenize)}) + measureContext ${ms(result.budget)} (n=${iterations})`,
    }),
  );
  const smallest = results[0];
  const largest = results[results.length - 1];
  const flat = smallest && largest ? largest.beyond / smallest.beyond : Number.NaN;
  rows.push(
    row({
      key: 'incremental.flatRatio',
      label: '2. flatness: beyond-tokenize time, 10,000 / 10 entries',
      value: Number.isFinite(flat) ? flat : null,
      unit: '×',
      target: `≤ ${FLAT_LIMIT}× and ≤ 1 ms at every size`,
      met: flat <= FLAT_LIMIT && results.every((result) => result.beyond <= 1),
      detail: 'what a turn costs beyond tokenizing its own messages, at the largest size over the smallest',
    }),
  );
  const figure = figureOf(rows);
  return {
    rows,
    limits: () =>
      `2. **Incremental cost (${verdictOf(rows)('incremental.flatRatio')}: ${figure('incremental.beyondTokenizeMs.10')} beyond tokenizing at 10 entries, ${figure('incremental.beyondTokenizeMs.10000')} at 10,000, ${figure('incremental.flatRatio')}):** \`SessionTree.pathTo\` walks back only to the first ancestor found on the last path it computed; \`countPath\` returns views over a per-session store (each entry recorded once with its depth, tokenized on first use); \`countContext\` resumes from the sums memoized at the previous leaf and at the start of the newest turn, adding each item once (a prune, pin or compaction, a late tool result or a reused call id rebuilds); the prune plan comes from an index of what its walk reads (row 12). What remains is a few map lookups and the copy of the path array, which the sizes here do not make visible.`,
  };
}
