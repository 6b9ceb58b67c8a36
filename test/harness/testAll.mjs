// `npm test`: lint, types, unit, faults, host and UI tiers in order; prints each tier's result and one final `N passed, N failed`.
// Env: AGENT_TEST_TIERS=unit,host runs a subset (names: lint, types, unit, smoke, faults, host, ui).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ensureInstalled } from './codeServer.mjs';

const BIN = path.join(ROOT, 'node_modules/.bin');
const VITEST_JSON = path.join(ROOT, 'test-results/vitest.json');

/** The last line a tier printed that starts with `N passed, N failed` (trailing text such as a duration is allowed). */
export function parseSummaryLine(output) {
  const matches = [...output.matchAll(/^(\d+) passed, (\d+) failed\b/gm)];
  const last = matches.at(-1);
  return last ? { passed: Number(last[1]), failed: Number(last[2]) } : undefined;
}

/** Counts from vitest's JSON report (written next to its normal console output). */
function vitestCounts() {
  try {
    const report = JSON.parse(fs.readFileSync(VITEST_JSON, 'utf8'));
    return { passed: report.numPassedTests, failed: report.numFailedTests + (report.numRuntimeErrors ?? 0) };
  } catch {
    return undefined;
  }
}

const TIERS = [
  { name: 'lint', command: [path.join(BIN, 'eslint'), '.', '--max-warnings', '0'], single: true },
  { name: 'types', command: ['npm', 'run', '--silent', 'typecheck'], single: true },
  {
    name: 'unit',
    command: [path.join(BIN, 'vitest'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${VITEST_JSON}`],
    before: () => fs.rmSync(VITEST_JSON, { force: true }),
    counts: vitestCounts,
  },
  // The bench's smoke form: speed regressions as ratios measured in one process (prints `N passed, N failed`; exit 1 on a regression).
  { name: 'smoke', command: [process.execPath, 'bench/run.mjs', '--smoke'] },
  { name: 'faults', command: [process.execPath, 'test/harness/runFaults.mjs'], when: 'test/harness/runFaults.mjs' },
  { name: 'host', command: [process.execPath, 'test/harness/runHostTests.mjs', '--with-endpoint'] },
  { name: 'ui', command: [process.execPath, 'test/ui/runUi.mjs'] },
];

/**
 * Runs a command with output shown live (each line prefixed with the tier name, so the only unprefixed
 * `N passed, N failed` line is the final total) and captured raw; resolves to { code, output }.
 */
function runCaptured(name, [command, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    const pending = { stdout: '', stderr: '' };
    const forward = (key, stream) => (chunk) => {
      output += chunk;
      const lines = (pending[key] + chunk).split('\n');
      pending[key] = lines.pop() ?? '';
      for (const line of lines) stream.write(`[${name}] ${line}\n`);
    };
    child.stdout.setEncoding('utf8').on('data', forward('stdout', process.stdout));
    child.stderr.setEncoding('utf8').on('data', forward('stderr', process.stderr));
    const finish = (code) => {
      if (pending.stdout) process.stdout.write(`[${name}] ${pending.stdout}\n`);
      if (pending.stderr) process.stderr.write(`[${name}] ${pending.stderr}\n`);
      resolve({ code, output });
    };
    child.on('error', (error) => {
      output += `\n${error.message}`;
      finish(1);
    });
    child.on('close', (code) => finish(code ?? 1));
  });
}

/** One tier's counts; a non-zero exit always counts as at least one failure (a crash is never a pass). */
async function runTier(tier) {
  tier.before?.();
  const started = Date.now();
  const { code, output } = await runCaptured(tier.name, tier.command);
  const seconds = (Date.now() - started) / 1000;
  let counts = tier.single ? { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1 } : (tier.counts?.() ?? parseSummaryLine(output));
  counts ??= { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1 };
  if (code !== 0 && counts.failed === 0) counts = { ...counts, failed: 1 };
  return { name: tier.name, ...counts, seconds, ok: code === 0 && counts.failed === 0 };
}

/** A command word as a reader would type it: `node` for this Node, repo paths relative. */
function displayPart(part) {
  if (part === process.execPath) return 'node';
  return part.startsWith(`${ROOT}/`) ? path.relative(ROOT, part) : part;
}

function selectedTiers() {
  const wanted = process.env.AGENT_TEST_TIERS?.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = (wanted ?? []).filter((name) => !TIERS.some((tier) => tier.name === name));
  if (unknown.length > 0) throw new Error(`unknown tier(s): ${unknown.join(', ')}`);
  return TIERS.filter((tier) => !wanted || wanted.includes(tier.name));
}

/** Tiers that drive Chromium or code-server: a fresh machine gets them installed (idempotently) first. */
const NEEDS_INSTALL = new Set(['faults', 'host', 'ui']);

async function main() {
  const started = Date.now();
  const results = [];
  if (selectedTiers().some((tier) => NEEDS_INSTALL.has(tier.name))) ensureInstalled();
  for (const tier of selectedTiers()) {
    if (tier.when && !fs.existsSync(path.join(ROOT, tier.when))) {
      console.log(`\n== ${tier.name}: skipped (${tier.when} does not exist)`);
      continue;
    }
    console.log(`\n== ${tier.name}: ${tier.command.map(displayPart).join(' ')}`);
    const result = await runTier(tier);
    results.push(result);
    console.log(`== ${tier.name}: ${result.ok ? 'ok' : 'FAILED'} (${result.passed} passed, ${result.failed} failed) in ${result.seconds.toFixed(1)} s`);
  }
  console.log('\nsummary:');
  for (const r of results) {
    console.log(`  ${r.ok ? '✔' : '✘'} ${r.name.padEnd(6)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(3)} failed  ${r.seconds.toFixed(1)} s`);
  }
  console.log(`  total time ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  const failed = results.reduce((sum, r) => sum + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  return results.every((r) => r.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`test: ${error instanceof Error ? error.message : String(error)}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
