// Row 4: opening the real 2.4 MB session in our format (warm persisted count cache, and cold) vs bare JSON.parse of its lines.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { measureContext } from '../src/core/budget/meter';
import { defaultSettings } from '../src/core/settings/settings';
import { importPiFile } from '../src/core/import/piImport';
import { SessionLog } from '../src/core/session/sessionLog';
import { CountCache } from '../src/core/tokens/countCache';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { buildContext } from '../src/core/context/contextBuilder';
import { figureOf, ms, row, verdictOf, type FamilyResult } from './benchReport';
import { collectGarbage, cpuNow, median, timeOnce } from './timing';
import { fixturePath } from './workloads';

const SETTINGS = defaultSettings();

interface LoadPhases {
  /** SessionLog.open: read, parse, validate, lock (and the re-read under the lock). */
  openMs: number;
  /** Reading and restoring the persisted count cache. */
  restoreMs: number;
  /** The meter's measurement: countPath (cache hits, or tokenizing when cold), the context counts, budget and prune plan. */
  countMs: number;
  totalMs: number;
}

/** Open the log, restore counts, build and count the context, compute the budget; then close it. */
export async function openSession(file: string, counter: TokenCounter, cacheFile: string | null): Promise<LoadPhases> {
  const start = cpuNow();
  const { log } = await SessionLog.open(file);
  const opened = cpuNow();
  try {
    const cache = cacheFile === null ? new CountCache() : CountCache.fromJSON(JSON.parse(readFileSync(cacheFile, 'utf8')) as unknown);
    const restored = cpuNow();
    measureContext(log.path(), { counter, cache, settings: SETTINGS, contextWindow: 200_000, systemRole: 'system', tools: [] });
    const end = cpuNow();
    return { openMs: opened - start, restoreMs: restored - opened, countMs: end - restored, totalMs: end - start };
  } finally {
    await log.close();
  }
}

/**
 * JSON.parse of every line of the file, the values kept until all are parsed, as an open keeps them (and as one
 * JSON.parse of the whole file would): values thrown away at once die young and never cost the collector the copy
 * that everything an open holds does. Returns how many lines were parsed.
 */
export function bareParse(file: string): number {
  return parseLines(file).length;
}

/** The values of every non-empty line of the file, each through JSON.parse. */
export function parseLines(file: string): unknown[] {
  const values: unknown[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) if (line.length > 0) values.push(JSON.parse(line));
  return values;
}

/** The texts the context of a path sends (message contents, tool-call names and arguments): what a cold open must tokenize. */
function contextTexts(path: Parameters<typeof buildContext>[0]): string[] {
  return buildContext(path).messages.flatMap((message) => [
    typeof message.content === 'string' ? message.content : '',
    ...(message.role === 'assistant' ? (message.tool_calls ?? []).flatMap((call) => [call.function.name, call.function.arguments]) : []),
  ]);
}

/**
 * A cold open may cost this much more than parsing the lines and tokenizing what the context sends with gpt-tokenizer
 * directly: it also counts the per-message framing, the placeholders the prune plan weighs, and builds the context
 * (before issue 29 it was 2.2×: every entry and a regex pre-scan of every text).
 */
const COLD_LIMIT = 1.6;

export async function sessionLoadBench(counter: TokenCounter, iterations: number): Promise<FamilyResult> {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'compaction-bench-'));
  try {
    const file = nodePath.join(dir, 'session.jsonl');
    const cacheFile = nodePath.join(dir, 'session.counts.json');
    await importPiFile(fixturePath('before-compaction.jsonl'), file);
    const { log } = await SessionLog.open(file, { readOnly: true });
    const cache = new CountCache();
    // What the extension saves beside the log after measuring (AgentSession.save): the counts the measurement asked for.
    measureContext(log.path(), { counter, cache, settings: SETTINGS, contextWindow: 200_000, systemRole: 'system', tools: [] });
    writeFileSync(cacheFile, JSON.stringify(cache.toJSON()));
    const bytes = readFileSync(file).length;
    const entries = log.tree.entries.length;
    const texts = contextTexts(log.path());
    const plain = { disallowedSpecial: new Set<string>() };
    const warm: LoadPhases[] = [];
    const cold: LoadPhases[] = [];
    const bare: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < iterations + 2; i++) {
      collectGarbage();
      const w = await openSession(file, counter, cacheFile);
      collectGarbage();
      const b = timeOnce(() => bareParse(file));
      collectGarbage();
      const c = await openSession(file, counter, null);
      collectGarbage();
      const d = timeOnce(() => {
        bareParse(file);
        for (const text of texts) if (text) countTokens(text, plain);
      });
      if (i < 2) continue;
      warm.push(w);
      bare.push(b);
      cold.push(c);
      direct.push(d);
    }
    const warmRatio = median(warm.map((p, k) => p.totalMs / (bare[k] ?? Number.NaN)));
    const coldRatio = median(cold.map((p, k) => p.totalMs / (bare[k] ?? Number.NaN)));
    const coldDirect = median(cold.map((p, k) => p.totalMs / (direct[k] ?? Number.NaN)));
    const warmMs = median(warm.map((p) => p.totalMs));
    const bareMs = median(bare);
    const coldMs = median(cold.map((p) => p.totalMs));
    const phases = (list: readonly LoadPhases[]): string =>
      `open ${ms(median(list.map((p) => p.openMs)))} + cache restore ${ms(median(list.map((p) => p.restoreMs)))} + counts/context/budget ${ms(median(list.map((p) => p.countMs)))}`;
    const rows = [
      row({
        key: 'load.warmRatio',
        label: '4. session load, warm count cache / bare JSON.parse of lines',
        value: warmRatio,
        unit: '×',
        target: '≤ 2×',
        met: warmRatio <= 2,
        detail: `CPU ${ms(warmMs)} = ${phases(warm)} vs JSON.parse ${ms(bareMs)} (${(bytes / 1e6).toFixed(2)} MB, ${entries} entries, n=${iterations})`,
      }),
      row({
        key: 'load.coldRatio',
        label: '4. first open without a count cache / bare JSON.parse',
        value: coldRatio,
        unit: '×',
        target: '',
        detail: `${ms(coldMs)} = ${phases(cold)}; what the context sends is tokenized once (tokenizer already loaded)`,
      }),
      row({
        key: 'load.coldDirectRatio',
        label: '4. first open without a count cache / (JSON.parse + gpt-tokenizer on what the context sends)',
        value: coldDirect,
        unit: '×',
        target: `≤ ${COLD_LIMIT}×`,
        met: coldDirect <= COLD_LIMIT,
        detail: `${ms(coldMs)} vs ${ms(median(direct))} for JSON.parse of the lines and countTokens of the ${texts.length} texts the context sends`,
      }),
    ];
    const figure = figureOf(rows);
    return {
      rows,
      limits: () =>
        `4. **Session load (${verdictOf(rows)('load.warmRatio')}: warm ${figure('load.warmRatio')} of JSON.parse; cold ${figure('load.coldDirectRatio')} of JSON.parse plus tokenizing what the context sends):** \`SessionLog.open\` re-reads under the lock only when the file changed since the first read and decodes each line once; the saved counts hold what the last measurement asked for (the context's entries, the summary, the placeholders the prune plan looked at), restored without splitting keys; the measurement then adds each context item once. Without saved counts the first open tokenizes what the context sends, and only that (entries a compaction summarized are never tokenized): ${figure('load.coldRatio')} of JSON.parse on this uncompacted session.`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
