// Entry of `npm run bench`: runs every benchmark in one process and prints a table (and, with --json, one JSON object).
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { TokenCounter } from '../src/core/tokens/tokenCounter';
import { accountingBench } from './accountingBench';
import { accuracyBench } from './accuracyBench';
import { activationBench } from './activationBench';
import { formatMarkdown, formatTable, type BenchRow } from './benchReport';
import { costFigures, costRows, costTables, costValue, runCostReplay, writeFrontierPictures, type CostRun } from './costBench';
import { costTuning } from './costTuning';
import { delegationBench } from './delegationBench';
import { FRONTIER_SWEEP, FULL_SWEEP } from './frontierSweep';
import { incrementalBench } from './incrementalBench';
import { hostileLoadBench } from './hostileLoadBench';
import { pathologicalBench } from './pathologicalBench';
import { planningBench } from './planningBench';
import { responsivenessBench } from './responsivenessBench';
import { sessionLoadBench } from './sessionLoadBench';
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

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  const json = args.has('--json');
  const quick = args.has('--quick');
  const log = (text: string): void => {
    // With --json, progress goes to stderr so stdout holds the JSON object only.
    if (json) process.stderr.write(`${text}\n`);
    else console.log(text);
  };
  const started = performance.now();
  const loadAtStart = Math.round((os.loadavg()[0] ?? 0) * 10) / 10;
  // The real sessions ran on Claude: not an OpenAI model, so the o200k count is an estimate to calibrate.
  const counter = await TokenCounter.create('claude-opus-4-5');
  const rows: BenchRow[] = [];
  let cost: CostRun | undefined;
  let tuning: string | undefined;
  // --only=<start of a step's name> runs just those steps (e.g. --only=cost).
  const only = [...args].find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  const scale = quick ? 0.3 : 1;
  const n = (count: number): number => Math.max(3, Math.round(count * scale));
  const steps: Array<[string, () => BenchRow[] | Promise<BenchRow[]>]> = [
    ['accounting overhead', () => accountingBench(counter, n(9))],
    ['incremental cost', () => incrementalBench(counter, n(200))],
    ['responsiveness', () => responsivenessBench(counter, n(5))],
    ['session load', () => sessionLoadBench(counter, n(9))],
    ['planning', () => planningBench(counter, n(50))],
    ['accuracy', () => accuracyBench(counter)],
    [
      'activation and size',
      () => {
        const failure = args.has('--package') ? packageExtension() : null;
        if (failure) log(failure);
        return activationBench(process.cwd(), n(5));
      },
    ],
    ['pathological input', () => pathologicalBench(counter, n(5))],
    ['hostile session load', () => hostileLoadBench(n(5))],
    ['delegation', () => delegationBench(counter, quick)],
    ['command snapshots', () => snapshotBench(quick)],
    [
      'cost per session',
      async () => {
        cost = await runCostReplay({ quick, log, sweep: args.has('--no-sweep') ? [] : args.has('--full-sweep') ? FULL_SWEEP : FRONTIER_SWEEP });
        for (const file of writeFrontierPictures(cost, process.cwd())) log(`bench: wrote ${file}`);
        // --cost-tune also replays our policy with alternative defaults (several minutes); --cost-tune=<text> only those named so.
        const tune = [...args].find((arg) => arg === '--cost-tune' || arg.startsWith('--cost-tune='));
        const named = tune?.slice('--cost-tune='.length);
        if (tune) tuning = await costTuning({ quick, log, ...(named ? { only: named } : {}) });
        return costRows(cost);
      },
    ],
  ];
  for (const [name, run] of steps) {
    if (only !== undefined && !name.startsWith(only)) continue;
    const stepStart = performance.now();
    log(`bench: ${name}...`);
    rows.push(...(await run()));
    log(`bench: ${name} done in ${((performance.now() - stepStart) / 1000).toFixed(1)} s`);
  }
  const info = machine(loadAtStart);
  const totalSeconds = (performance.now() - started) / 1000;
  const title = `${info.cpus} CPUs (${info.cpuModel}), ${info.ramGiB} GiB RAM, Node ${info.node}, ${info.platform}; load average ${info.loadAverage.start} → ${info.loadAverage.end}; ${totalSeconds.toFixed(0)} s.\nCompute timings are process CPU time (robust to other processes on the machine); event-loop stretches are wall time. Ratios come from runs interleaved in this process.`;
  if (json) {
    const figures = { ...Object.fromEntries(rows.map((r) => [r.key, r.value])), ...(cost ? costFigures(cost) : {}) };
    process.stdout.write(`${JSON.stringify({ machine: info, totalSeconds, ...(cost ? { value: costValue(cost) } : {}), figures, rows, ...(tuning ? { costTuning: tuning } : {}) })}\n`);
  } else {
    console.log(`\n${title}\n`);
    console.log(args.has('--markdown') ? formatMarkdown(rows) : formatTable(rows));
    if (cost) console.log(`\nCost per session (${cost.workloads.map((w) => `${w.name}: ${w.turns} turns`).join(', ')}; ${cost.seconds.toFixed(0)} s):\n\n${costTables(cost)}`);
    if (tuning) console.log(`\nOur policy with alternative defaults:\n\n${tuning}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
