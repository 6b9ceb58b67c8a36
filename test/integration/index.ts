// Mocha runner loaded by VS Code from extensionTestsPath: runs every *.test.js beside it inside the real extension host.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/** What the harness reads back (the workbench only reports an exit code). */
export interface HostTestResults {
  passed: number;
  failed: number;
  pending: number;
  total: number;
  tests: string[];
  failures: { name: string; message: string }[];
}

function writeResults(results: HostTestResults): void {
  const file = process.env.AGENT_TEST_RESULTS;
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(results, null, 2));
}

/** Entry point the extension host calls; settles when the suite is done (rejects on any failure). */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: 60_000 });
  const grep = process.env.AGENT_TEST_GREP;
  if (grep) mocha.grep(grep);
  const files = fs.readdirSync(__dirname).filter((name) => name.endsWith('.test.js'));
  for (const name of files.sort()) mocha.addFile(path.join(__dirname, name));

  const results: HostTestResults = { passed: 0, failed: 0, pending: 0, total: 0, tests: [], failures: [] };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      results.failed = failures;
      results.total = results.passed + results.failed + results.pending;
      writeResults(results);
      console.log(`${results.passed} passed, ${results.failed} failed`);
      if (failures > 0) reject(new Error(`${failures} extension-host test(s) failed`));
      else resolve();
    });
    runner.on('pass', (test) => {
      results.passed += 1;
      results.tests.push(test.fullTitle());
    });
    runner.on('pending', (test) => {
      results.pending += 1;
      results.tests.push(`${test.fullTitle()} (skipped)`);
    });
    runner.on('fail', (test, error: unknown) => {
      results.tests.push(test.fullTitle());
      const message = error instanceof Error ? error.message : String(error);
      results.failures.push({ name: test.fullTitle(), message });
    });
  });
}
