// Row 1: counting a whole real session through the budget code (fresh count cache) vs calling gpt-tokenizer directly.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { prunePlaceholder } from '../src/core/context/contextMarkers';
import { CountCache } from '../src/core/tokens/countCache';
import { countPath } from '../src/core/tokens/entryTokens';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import type { SessionEntry } from '../src/core/session/entries';
import { isMessageEntry } from '../src/core/session/entries';
import { figureOf, ms, row, verdictOf, type FamilyResult } from './benchReport';
import { median, medianTime, pairedRatio, timePaired } from './timing';
import { importedEntries } from './workloads';

/** The strings a message entry sends: its text or output, and each tool call's name and arguments. */
function entryStrings(entries: readonly SessionEntry[]): string[] {
  const strings: string[] = [];
  for (const entry of entries) {
    if (!isMessageEntry(entry)) continue;
    if (entry.type === 'user') strings.push(entry.text);
    else if (entry.type === 'toolResult') strings.push(entry.content);
    else {
      strings.push(entry.text);
      for (const call of entry.toolCalls) strings.push(call.name, call.arguments);
    }
  }
  return strings;
}

export function accountingBench(counter: TokenCounter, iterations: number): FamilyResult {
  const path = importedEntries('before-compaction.jsonl');
  const strings = entryStrings(path);
  let ours = 0;
  let direct = 0;
  const times = timePaired(
    () => {
      const counts = countPath(path, counter, new CountCache());
      ours = 0;
      for (const tokens of counts.full.values()) ours += tokens;
    },
    () => {
      direct = 0;
      for (const text of strings) direct += text ? countTokens(text) : 0;
    },
    iterations,
  );
  const oursMs = median(times.a);
  const directMs = median(times.b);
  const ratio = pairedRatio(times);
  const chars = strings.reduce((sum, text) => sum + text.length, 0);
  // countPath also counts every tool result's pruned placeholder up front: how much of the overhead that is.
  const placeholders = path.flatMap((entry) => (entry.type === 'toolResult' ? [prunePlaceholder(entry)] : []));
  const placeholderMs = medianTime(() => {
    for (const text of placeholders) countTokens(text);
  }, iterations);
  const rows = [
    row({
      key: 'accounting.overheadRatio',
      label: '1. accounting overhead (countPath, fresh cache / direct countTokens)',
      value: ratio,
      unit: '×',
      target: '≤ 1.15',
      met: ratio <= 1.15,
      detail: `CPU ours ${ms(oursMs)} vs direct ${ms(directMs)} for ${path.filter(isMessageEntry).length} entries, ${(chars / 1e6).toFixed(2)} M chars; ${ours} tokens with framing vs ${direct} bare; counting the ${placeholders.length} pruned placeholders alone takes ${ms(placeholderMs)} (n=${iterations})`,
    }),
  ];
  const figure = figureOf(rows);
  return {
    rows,
    limits: () =>
      `1. **Accounting overhead (${verdictOf(rows)('accounting.overheadRatio')}: ${figure('accounting.overheadRatio')}):** what remains beyond gpt-tokenizer's own count is finding whitespace-free runs longer than 256 characters (counted in pieces, since BPE is quadratic in a pre-token's length): a window of 257 characters is read from its end backwards and the first space found moves it past, so prose costs about one word per 250 characters (the \`/\\S{257,}/\` regex it replaces re-read a run at every position inside it, 0.6× of tokenizing), plus the per-message framing (part of the count) and one record per entry in the session's count store. Entries are counted from their fields (\`TokenCounter.countMessageParts\`, no message object built), on first use.`,
  };
}
