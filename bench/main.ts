// Entry of `npm run bench`: runs every benchmark in one process, prints a table and "N of M targets met" (exit 1 when one is not), --write regenerates BENCHMARKS.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { performance } from 'node:perf_hooks';
import { TokenCounter } from '../src/core/tokens/tokenCounter';
import { accountingBench } from './accountingBench';
import { accuracyBench, accuracyLimits } from './accuracyBench';
import { activationBench } from './activationBench';
import { benchDocument } from './benchDocument';
import { asFamily, formatMarkdown, formatTable, targetLine, type BenchRow, type FamilyResult } from './benchReport';
import { runCostReplay, type CostRun } from './costBench';
import { costMarkdownSection, writeFrontierPictures } from './valueMarkdown';
import { costFigures, costRows, costValue } from './valueReport';
import { folderWorkloads, PUBLIC_SESSIONS_DIR } from './costWorkloads';
import { costTuning } from './costTuning';
import { delegationBench, delegationLimits } from './delegationBench';
import { FRONTIER_SWEEP, FULL_SWEEP } from './frontierSweep';
import { exitFlushed } from './flushedExit';
import { growthBench } from './growthBench';
import { incrementalBench } from './incrementalBench';
import { largeFileStoreBench } from './largeFileStore';
import { hostileLoadBench, hostileLoadLimits } from './hostileLoadBench';
import { pathologicalBench, pathologicalLimits } from './pathologicalBench';
import { planningBench, planningLimits } from './planningBench';
import { renderBench } from './renderBench';
import { responsivenessBench, responsivenessLimits } from './responsivenessBench';
import { sessionLoadBench } from './sessionLoadBench';
import { smokeBench } from './smokeBench';
import { snapshotBench } from './snapshotBench';

interface Machine {
  cpus: number;
  cpuModel: string;
  ramGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started and ended (2 cores: above 2 means we shared the CPU). */
  loadAverage: { start: number; end: number };
}

function machine(loadAtStart: number): Machine {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    ramGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: { start: loadAtStart, end: Math.round((os.loadavg()[0] ?? 0) * 10) / 10 },
  };
}

/** Builds the VSIX first (`--package`), so row 7 measures the production bundles that ship. */
function packageExtension(): string | null {
  const result = spawnSync('npm', ['run', 'package'], { cwd: process.cwd(), encoding: 'utf8', timeout: 180_000 });
  if (result.status === 0) return null;
  return `npm run package failed (exit ${String(result.status)}): ${(result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ')}`;
}

/** A family whose "what limits" paragraph is written by a function of its rows. */
function withLimits(rows: BenchRow[], limits: (rows: readonly BenchRow[]) => string): FamilyResult {
  return { rows, limits: () => limits(rows) };
}

/** Why --write refuses this run, or undefined for a full run. */
function partialRun(args: ReadonlySet<string>): string | undefined {
  const partial = [...args].filter((arg) => arg === '--quick' || arg === '--smoke' || arg.startsWith('--only=') || arg === '--no-sweep' || arg.startsWith('--sessions') || arg.startsWith('--sweep=') || arg.startsWith('--windows='));
  return partial.length > 0 ? `--write regenerates BENCHMARKS.md from a full run only; this run has ${partial.join(', ')}` : undefined;
}

function writeDocument(text: string, pictures: ReadonlyArray<{ file: string; content: string }>, log: (text: string) => void): void {
  const root = process.cwd();
  for (const picture of pictures) {
    const file = nodePath.join(root, picture.file);
    mkdirSync(nodePath.dirname(file), { recursive: true });
    writeFileSync(file, `${picture.content}\n`);
    log(`bench: wrote ${picture.file}`);
  }
  writeFileSync(nodePath.join(root, 'BENCHMARKS.md'), text);
  log('bench: wrote BENCHMARKS.md');
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const args = new Set(argv);
  // --sessions <folder> (two tokens) or --sessions=<folder>: the value step replays that folder's pi-format sessions.
  const sessionsAt = argv.indexOf('--sessions');
  const sessions = sessionsAt >= 0 ? argv[sessionsAt + 1] : argv.find((arg) => arg.startsWith('--sessions='))?.slice('--sessions='.length);
  if (sessionsAt >= 0 && (sessions === undefined || sessions.startsWith('--'))) throw new Error('--sessions needs a folder of pi-format session files (.jsonl or .jsonl.gz).');
  const json = args.has('--json');
  const quick = args.has('--quick');
  if (args.has('--write') && partialRun(args)) {
    console.error(`bench: ${partialRun(args) ?? ''}. Run \`npm run bench -- --write\` alone.`);
    return 2;
  }
  if (args.has('--smoke')) return smokeBench();
  const log = (text: string): void => {
    // With --json, progress goes to stderr so stdout holds the JSON object only.
    if (json) process.stderr.write(`${text}\n`);
    else console.log(text);
  };
  const started = performance.now();
  const loadAtStart = Math.round((os.loadavg()[0] ?? 0) * 10) / 10;
  // The real sessions ran on Claude: not an OpenAI model, so the o200k count is an estimate to calibrate.
  const counter = await TokenCounter.create('claude-opus-4-5');
  const families: Array<{ name: string; result: FamilyResult }> = [];
  let cost: CostRun | undefined;
  let tuning: string | undefined;
  // --only=<start of a step's name> runs just those steps (e.g. --only=cost).
  const only = [...args].find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  const scale = quick ? 0.3 : 1;
  const n = (count: number): number => Math.max(3, Math.round(count * scale));
  type StepResult = BenchRow[] | FamilyResult;
  const steps: Array<[string, () => StepResult | Promise<StepResult>]> = [
    ['accounting overhead', () => accountingBench(counter, n(9))],
    ['incremental cost', () => incrementalBench(counter, n(200))],
    ['responsiveness', async () => withLimits(await responsivenessBench(counter, n(5)), responsivenessLimits)],
    ['session load', () => sessionLoadBench(counter, n(9))],
    ['planning', () => withLimits(planningBench(counter, n(50)), planningLimits)],
    ['accuracy', () => withLimits(accuracyBench(counter), accuracyLimits)],
    [
      'activation and size',
      () => {
        // --write documents the bundles that ship, so it builds them first.
        const packaging = args.has('--package') || args.has('--write');
        const failure = packaging ? packageExtension() : null;
        if (failure) log(failure);
        return activationBench(process.cwd(), n(5), packaging && failure === null);
      },
    ],
    ['pathological input', () => withLimits(pathologicalBench(counter, n(5)), pathologicalLimits)],
    ['hostile session load', async () => withLimits(await hostileLoadBench(n(5)), hostileLoadLimits)],
    ['delegation', async () => withLimits(await delegationBench(counter, quick), delegationLimits)],
    ['growth', () => growthBench(counter, { root: process.cwd(), samples: n(100) })],
    ['rendering', () => renderBench(n(15))],
    ['command snapshots', () => snapshotBench(quick)],
    ['checkpoint store', () => largeFileStoreBench()],
    [
      'value: cost against availability',
      async () => {
        // --sweep=<key,key> replays just those swept settings; --windows=<tokens,tokens> just those windows.
        const named = argv.find((arg) => arg.startsWith('--sweep='))?.slice('--sweep='.length).split(',');
        const sweep = named ? FULL_SWEEP.filter((point) => named.includes(point.key)) : args.has('--no-sweep') ? [] : args.has('--full-sweep') ? FULL_SWEEP : FRONTIER_SWEEP;
        const windowList = argv.find((arg) => arg.startsWith('--windows='))?.slice('--windows='.length).split(',');
        const windows = windowList ? { windows: windowList } : {};
        if (sessions) {
          cost = await runCostReplay({ quick, log, sweep, ...windows, workloads: folderWorkloads(sessions, quick), sessions: `the sessions in ${sessions}` });
          return costRows(cost);
        }
        cost = await runCostReplay({ quick, log, sweep, ...windows, sessions: 'the bench sessions' });
        for (const file of writeFrontierPictures(cost, process.cwd())) log(`bench: wrote ${file}`);
        // The public sessions (recorded by other agents' users) are judged with the same yardstick in the same run.
        const publicCost = await runCostReplay({ quick, log, sweep, ...windows, workloads: folderWorkloads(PUBLIC_SESSIONS_DIR, quick), sessions: 'the public sessions' });
        for (const file of writeFrontierPictures(publicCost, process.cwd(), 'public-')) log(`bench: wrote ${file}`);
        // --cost-tune also replays our policy with alternative defaults (several minutes); --cost-tune=<text> only those named so.
        const tune = [...args].find((arg) => arg === '--cost-tune' || arg.startsWith('--cost-tune='));
        const only = tune?.slice('--cost-tune='.length);
        if (tune) tuning = await costTuning({ quick, log, ...(only ? { only } : {}) });
        cost.public = publicCost;
        // --value-markdown=<file> writes the section's markdown from this very run (for BENCHMARKS.md).
        const markdownFile = argv.find((arg) => arg.startsWith('--value-markdown='))?.slice('--value-markdown='.length);
        if (markdownFile) writeFileSync(markdownFile, `${costMarkdownSection(cost)}\n`);
        return costRows(cost);
      },
    ],
  ];
  for (const [name, run] of steps) {
    if (only !== undefined && !name.startsWith(only)) continue;
    const stepStart = performance.now();
    log(`bench: ${name}...`);
    families.push({ name, result: asFamily(await run()) });
    log(`bench: ${name} done in ${((performance.now() - stepStart) / 1000).toFixed(1)} s`);
  }
  const rows: BenchRow[] = families.flatMap((family) => family.result.rows);
  const targets = targetLine(rows);
  const info = machine(loadAtStart);
  const totalSeconds = (performance.now() - started) / 1000;
  const title = `${info.cpus} CPUs (${info.cpuModel}), ${info.ramGiB} GiB RAM, Node ${info.node}, ${info.platform}; load average ${info.loadAverage.start} → ${info.loadAverage.end}; ${totalSeconds.toFixed(0)} s.`;
  if (json) {
    const figures = { ...Object.fromEntries(rows.map((r) => [r.key, r.value])), ...(cost ? costFigures(cost) : {}) };
    const summary = { met: targets.met, total: targets.total, missed: targets.missed.map((r) => r.key) };
    process.stdout.write(`${JSON.stringify({ machine: info, totalSeconds, targets: summary, ...(cost ? { value: costValue(cost) } : {}), figures, rows, ...(tuning ? { costTuning: tuning } : {}) })}\n`);
  } else {
    console.log(`\n${title}\nCompute timings are process CPU time (robust to other processes on the machine); event-loop stretches are wall time. Ratios come from runs interleaved in this process.\n`);
    console.log(args.has('--markdown') ? formatMarkdown(rows) : formatTable(rows));
    if (cost) console.log(`\n${costMarkdownSection(cost)}`);
    if (tuning) console.log(`\nOur policy with alternative defaults:\n\n${tuning}`);
  }
  if (args.has('--write')) {
    const pictures = families.flatMap((family) => family.result.pictures?.() ?? []);
    writeDocument(benchDocument({ machine: title, totalSeconds, families, ...(cost ? { costSection: costMarkdownSection(cost) } : {}) }), pictures, log);
  }
  for (const r of targets.missed) log(`bench: NOT met: ${r.label}: ${r.value === null ? 'not measured' : r.value} (target ${r.target})`);
  // The last line, on stderr with --json so stdout stays one JSON object.
  log(targets.line);
  // With --json the verdict is the object's targets.missed: npm would add an error object to stdout after a failing script.
  return targets.missed.length === 0 || json ? 0 : 1;
}

main().then(
  (code) => exitFlushed(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    exitFlushed(1);
  },
);
