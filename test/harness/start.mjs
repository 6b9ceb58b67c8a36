// `npm start`: the extension loaded from source in a throwaway profile and a copy of the sample workspace (desktop `code` or code-server).
// Usage: node test/harness/start.mjs [--no-demo]   Nothing is configured in that profile, so by default the scripted demo
// endpoint is started and the profile points at it; --no-demo (or AGENT_NO_DEMO=1) opens it with no endpoint at all.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ROOT,
  SAMPLE_WORKSPACE,
  ensureInstalled,
  makeDevExtensionsRoot,
  makeRunDirs,
  removeRunDirs,
  startCodeServer,
  stopCodeServer,
  workbenchUrl,
} from './codeServer.mjs';
import { startScriptedEndpoint } from './scriptedEndpoint.mjs';

function onPath(command) {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Settings that point the extension at the scripted demo endpoint: only its URL and model. Everything else keeps
 * the extension's defaults; the endpoint lists its model with a small window, which is what makes the budget fill.
 */
function demoSettings(endpoint) {
  if (!endpoint) return {};
  return {
    'compactionAgent.endpoint.baseUrl': endpoint.url,
    'compactionAgent.endpoint.model': 'demo-model',
  };
}

function printDemoBanner(endpoint) {
  console.log(`\nstart: DEMO MODE: @agent talks to the scripted demo endpoint at ${endpoint.url} (replies say [demo endpoint]; no model, no key).`);
  console.log('start: first run "Compaction Agent: Ask @agent" (it starts the extension, so the chat\'s model picker lists the demo model),');
  console.log('       then in the Chat view ask, one after the other:');
  console.log('         @agent the slugify test fails, please fix it');
  console.log('         @agent now check the docs for other slug rules we break');
  console.log('         @agent run the tests again');
  console.log('         @agent /compact');
  console.log('start: to use a real server instead, run "Compaction Agent: Set Up Endpoint" in the workbench (or npm start -- --no-demo).\n');
}

/** Resolves on Ctrl+C or SIGTERM. */
function untilInterrupted() {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

async function startDesktop(settings, keepAlive) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'compaction-agent-start-'));
  const profile = path.join(scratch, 'profile');
  const workspace = path.join(scratch, 'workspace');
  fs.mkdirSync(path.join(profile, 'User'), { recursive: true });
  fs.writeFileSync(path.join(profile, 'User/settings.json'), JSON.stringify(settings, null, 2));
  fs.cpSync(SAMPLE_WORKSPACE, workspace, { recursive: true });
  const args = ['--extensionDevelopmentPath', ROOT, '--user-data-dir', profile, '--new-window', workspace];
  spawn('code', args, { stdio: 'inherit' }).on('error', (error) => console.error(`start: ${error.message}`));
  console.log(`start: launched desktop VS Code (profile ${profile})`);
  if (keepAlive) {
    console.log('start: the scripted endpoint keeps running; press Ctrl+C to stop it');
    await untilInterrupted();
  }
}

async function startBrowser(settings) {
  ensureInstalled();
  const dirs = makeRunDirs('start', { settings });
  const devRoot = makeDevExtensionsRoot(dirs, { 'compaction-agent': ROOT });
  const port = process.env.PORT ? Number(process.env.PORT) : undefined;
  const server = await startCodeServer(dirs, { port, smokeTestDriver: true });
  try {
    console.log('\nstart: code-server is running with the extension loaded from source. Open:\n');
    console.log(`  ${workbenchUrl(server, dirs.workspace, [['extensionDevelopmentPath', devRoot]])}\n`);
    console.log(`start: throwaway profile and workspace copy in ${dirs.run} (deleted on exit).`);
    console.log('start: after a rebuild (npm run build or npm run watch) reload the window.');
    console.log('start: press Ctrl+C to stop.');
    await untilInterrupted();
  } finally {
    await stopCodeServer(server);
    removeRunDirs(dirs, { always: true });
  }
}

async function main() {
  const demo = !process.argv.includes('--no-demo') && !process.env.AGENT_NO_DEMO;
  execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const endpoint = demo ? await startScriptedEndpoint('demoSession') : undefined;
  if (endpoint) printDemoBanner(endpoint);
  else if (demo) console.log('start: no scripted endpoint built (dist-test/support/scriptedEndpointMain.js): opening with nothing configured');
  try {
    const settings = demoSettings(endpoint);
    if (onPath('code')) await startDesktop(settings, endpoint !== undefined);
    else await startBrowser(settings);
  } finally {
    endpoint?.stop();
  }
}

main().catch((error) => {
  console.error(`start: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
