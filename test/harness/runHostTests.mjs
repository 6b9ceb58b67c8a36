// Host tier: runs dist-test/integration (mocha) inside code-server's real extension host and prints `N passed, N failed`.
// Usage: node test/harness/runHostTests.mjs [--no-build] [--with-endpoint[=scenario]]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT,
  ensureInstalled,
  makeDevExtensionsRoot,
  makeRunDirs,
  removeRunDirs,
  startCodeServer,
  stopCodeServer,
  workbenchUrl,
} from './codeServer.mjs';
import { exposeTestAutomation, launchChromium, screenshot } from './browser.mjs';
import { startScriptedEndpoint } from './scriptedEndpoint.mjs';

// A guard against a hung workbench, not a speed check: the suite takes 4-6 minutes on a loaded 2-core machine.
const TIMEOUT_MS = Number(process.env.AGENT_HOST_TEST_TIMEOUT_MS || 900_000);
const DEV_NAME = 'compaction-agent';
// Which extension folder to load (default: this checkout); lets the harness itself be tried on a stub copy.
const EXTENSION_ROOT = process.env.AGENT_EXTENSION_ROOT || ROOT;

function parseArgs(argv) {
  const endpointArg = argv.find((arg) => arg === '--with-endpoint' || arg.startsWith('--with-endpoint='));
  return {
    build: !argv.includes('--no-build'),
    endpointScenario: endpointArg ? (endpointArg.split('=')[1] ?? 'codingSession') : undefined,
  };
}

function readResults(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The suite that runs a second time in a window whose folder is not trusted (workspace trust on, no prompt). */
const RESTRICTED_SUITE = 'Restricted Mode';
// code-server's port forwarding finds listening processes with `ps` from the extension host (the scripted endpoint
// listens there) unless ports are found from terminal output instead: so every child process the host starts during
// the test is one a request started.
const RESTRICTED_SETTINGS = {
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
  'remote.autoForwardPorts': false,
  'remote.autoForwardPortsSource': 'output',
};

/** Starts what the suite needs, runs it in the workbench, and always tears everything down. */
async function runSuite(options, { restricted = false } = {}) {
  const dirs = restricted ? makeRunDirs('host-tests-restricted', { trust: true, settings: RESTRICTED_SETTINGS }) : makeRunDirs('host-tests');
  const devRoot = makeDevExtensionsRoot(dirs, { [DEV_NAME]: EXTENSION_ROOT });
  const resultsFile = path.join(dirs.run, 'results.json');
  const env = { AGENT_TEST_RESULTS: resultsFile, AGENT_TEST_HOST: 'code-server', ...(restricted ? { AGENT_TEST_GREP: RESTRICTED_SUITE } : {}) };
  let endpoint, server, browser;
  try {
    if (options.endpointScenario) {
      endpoint = await startScriptedEndpoint(options.endpointScenario);
      if (endpoint) env.AGENT_TEST_ENDPOINT_URL = endpoint.url;
      console.log(endpoint ? `host: scripted endpoint at ${endpoint.url}` : 'host: no scripted endpoint built; skipping it');
    }
    server = await startCodeServer(dirs, { env, smokeTestDriver: true });
    console.log(`host: code-server up on ${server.url} in ${server.startMs} ms`);
    browser = await launchChromium(dirs);
    const { exited } = await exposeTestAutomation(browser.page, (line) => console.log(line));
    const testsPath = path.join(devRoot, DEV_NAME, 'dist-test/integration/index.js');
    const url = workbenchUrl(server, dirs.workspace, [
      ['extensionDevelopmentPath', devRoot],
      ['extensionTestsPath', testsPath],
    ]);
    await browser.page.goto(url);
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), TIMEOUT_MS).unref());
    const exitCode = await Promise.race([exited, timeout]);
    await screenshot(browser.page, 'host-tests-final');
    return { exitCode, results: readResults(resultsFile), dirs };
  } finally {
    await browser?.context.close().catch(() => undefined);
    await stopCodeServer(server);
    endpoint?.stop();
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  if (options.build) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (!fs.existsSync(path.join(ROOT, 'dist-test/integration/index.js'))) {
    throw new Error('dist-test/integration/index.js is missing: test/integration/index.ts did not build');
  }
  ensureInstalled();
  let passed = 0;
  let failed = 0;
  // The trusted window runs every suite; an untrusted one runs the Restricted Mode suite (skipped in the first).
  const grep = process.env.AGENT_TEST_GREP;
  const runs = [{ restricted: false }, ...(!grep || RESTRICTED_SUITE.includes(grep) || grep.includes('Restricted') ? [{ restricted: true }] : [])];
  for (const run of runs) {
    const label = run.restricted ? 'host (untrusted folder)' : 'host';
    const { exitCode, results, dirs } = await runSuite(options, run);
    if (exitCode === 'timeout') console.log(`${label}: the suite did not finish within ${TIMEOUT_MS} ms`);
    for (const failure of results?.failures ?? []) console.log(`host: FAILED ${failure.name}: ${failure.message.split('\n')[0]}`);
    if (!results) console.log(`${label}: no results file was written (server log: ${path.join(dirs.run, 'server.log')})`);
    const ok = exitCode === 0 && results !== undefined && results.failed === 0;
    passed += results?.passed ?? 0;
    failed += ok ? 0 : Math.max(results?.failed ?? 1, 1);
    removeRunDirs(dirs, { failed: !ok });
  }
  console.log(`host: finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`host: ${error instanceof Error ? error.stack : String(error)}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
