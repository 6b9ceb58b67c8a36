// UI tier ("what only the screen proves"): installs the packaged VSIX in a fresh code-server, points it at the scripted
// endpoint and drives it with chromium, in each colour theme.
// Usage: node test/ui/runUi.mjs [--no-package] [--readme-shots]   Env: AGENT_UI_THEMES=light,dark,hc-black,hc-light (default all
// four; a High Contrast workbench runs only the checks that name its theme), AGENT_UI_ONLY=words,
// AGENT_UI_NO_DEMO=1 (skip the demo workbench: the README demo with default settings)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { ROOT, ensureInstalled, installVsix, makeRunDirs, removeRunDirs, startCodeServer, stopCodeServer, workbenchUrl } from '../harness/codeServer.mjs';
import { launchChromium, screenshot, SCREENSHOT_DIR } from '../harness/browser.mjs';
import { ENDPOINT_MAIN, startScriptedEndpoint } from '../harness/scriptedEndpoint.mjs';
import { CHECKS as ALL_CHECKS, DEMO_CHECKS as ALL_DEMO_CHECKS } from './checkRegistry.mjs';
import { workbenchLoads } from './checks/workbenchLoads.mjs';
import { MAIN_THEMES, SELECTORS, TEXT, THEMES } from './selectors.mjs';
import { pickDemoModel } from './workbench.mjs';

const VSIX = path.join(ROOT, 'dist-vsix/compaction-agent.vsix');

/** AGENT_UI_ONLY=setup,attached runs only the checks whose names contain one of the words (to iterate on a few). */
const ONLY = (process.env.AGENT_UI_ONLY ?? '').split(',').map((word) => word.trim()).filter(Boolean);
const only = (checks) => (ONLY.length === 0 ? checks : checks.filter((check) => ONLY.some((word) => check.name.includes(word))));
const CHECKS = only(ALL_CHECKS);
const DEMO_CHECKS = only(ALL_DEMO_CHECKS);
const SCENARIO = 'uiSession';

/** README pictures: docs/screenshots/<name>.png ← test-results/screenshots/ui-<theme>-<shot>.png (with --readme-shots, when green). */
const README_SHOTS = {
  overview: ['dark', '06-budget-panel'],
  review: ['light', '07-review-edited'],
  restore: ['dark', '09-restore-pick'],
  checkpoints: ['dark', '11a-checkpoint-choice'],
  setup: ['light', '02b-setup-models'],
  'setup-answer': ['light', '02c-setup-first-answer'],
  diff: ['light', '13-diff-confirmation'],
  attachment: ['dark', '15b-file-answered'],
  cost: ['dark', '14-cost-line'],
  reasoning: ['light', '12-reasoning-line'],
  delegate: ['dark', '16-delegated-subtask'],
  drop: ['light', '16a-drop-measured'],
  handoff: ['light', '17a-handoff-review'],
  // The README's demo (its own workbench, label "demo").
  'demo-pruned': ['demo', 'demo-02-pruned'],
  'demo-review': ['demo', 'demo-03-review'],
  'demo-restore': ['demo', 'demo-05-restore-pick'],
  'restored-question': ['demo', 'demo-07-question'],
};

function packageVsix() {
  fs.rmSync(VSIX, { force: true });
  execFileSync('npm', ['run', '--silent', 'package'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (!fs.existsSync(VSIX)) throw new Error(`npm run package did not produce ${VSIX}`);
}

/** Builds only the scripted endpoint (npm run package builds the extension for production, not the test support). */
async function buildScriptedEndpoint() {
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'test/support/scriptedEndpointMain.ts')],
    outfile: ENDPOINT_MAIN,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
}

/**
 * The run's user settings: a small window so the budget moves visibly, no confirmations, and no endpoint: the
 * setup check configures it through the guided setup, from nothing, as a new user would.
 */
function uiSettings(theme) {
  return {
    'workbench.colorTheme': THEMES[theme],
    'compactionAgent.tools.requireConfirmation': false,
    'compactionAgent.context.windowTokens': 32000,
    'compactionAgent.context.maxOutputTokens': 1024,
    'compactionAgent.compaction.reserveTokens': 2048,
    'compactionAgent.compaction.keepRecentTokens': 1000,
    'compactionAgent.compaction.review': 'manual',
    // VS Code's own tools fill what the conversation leaves of the tools' share, so with them the prompt stays
    // level from turn to turn; without them each turn visibly grows the budget, which the chat check reads.
    'compactionAgent.tools.includeVsCodeTools': false,
  };
}

/** What the setup check configures through the guided setup, written directly (after its failure, or when it is not run). */
function ensureEndpoint(dirs, endpoint) {
  const settingsFile = path.join(dirs.userData, 'User/settings.json');
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  if (settings['compactionAgent.endpoint.baseUrl']) return;
  fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, 'compactionAgent.endpoint.baseUrl': endpoint.url, 'compactionAgent.endpoint.model': TEXT.demoModel }, null, 2));
}

/**
 * A failed check may leave a dialog, a quick pick, the Settings editor or a half-typed input behind: reload the
 * window so the next check starts from a clean workbench, and give it the endpoint the setup check would have set.
 */
async function recover({ page, dirs, endpoint }) {
  ensureEndpoint(dirs, endpoint);
  await page.reload();
  await page.locator(SELECTORS.workbench).waitFor({ timeout: 60_000 });
  await page.locator(SELECTORS.budgetStatusItem).first().waitFor({ timeout: 30_000 }).catch(() => undefined);
  await pickDemoModel(page);
}

/**
 * Every check runs: one failure never marks the others "not run". After a failure the window is reloaded
 * (recover); a check that builds on the state of another (check.needs) reports that one's failure instead of
 * timing out on a state that is not there.
 */
async function runChecks(checks, context) {
  const results = [];
  const failed = new Set();
  if (!checks.some((check) => check.name.includes('offers the setup'))) ensureEndpoint(context.dirs, context.endpoint);
  // Run alone (AGENT_UI_ONLY), a check would start before the workbench has loaded.
  if (ONLY.length > 0) await context.page.locator(SELECTORS.workbench).waitFor({ timeout: 60_000 }).then(() => context.page.waitForTimeout(3_000));
  // Without the setup check the chat may still have "(set up an endpoint)" picked: the endpoint's model, once loaded.
  const setUp = checks.some((check) => check.name.includes('offers the setup'));
  for (const [index, check] of checks.entries()) {
    const name = `[${context.theme}] ${check.name}`;
    if (!setUp && index === 1) await pickDemoModel(context.page).catch((error) => console.log(`    (picking ${TEXT.demoModel}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`));
    const missing = (check.needs ?? []).filter((needed) => failed.has(needed.name));
    if (missing.length > 0) {
      failed.add(check.name);
      results.push({ name, ok: false });
      console.log(`  ✘ ${name}: builds on "${missing.map((needed) => needed.name).join('", "')}", which failed`);
      continue;
    }
    const started = Date.now();
    try {
      await check.run(context);
      results.push({ name, ok: true });
      console.log(`  ✔ ${name} (${Date.now() - started} ms)`);
    } catch (error) {
      await context.shot(`fail-${String(index + 1).padStart(2, '0')}`).catch(() => undefined);
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      failed.add(check.name);
      results.push({ name, ok: false });
      console.log(`  ✘ ${name}: ${message}`);
      await recover(context).catch((recoveryError) => console.log(`    (recovery after the failure: ${recoveryError instanceof Error ? recoveryError.message.split('\n')[0] : String(recoveryError)})`));
    }
  }
  return results;
}

/** One workbench: its endpoint scenario, its settings and its checks; returns [{ name, ok }]. */
async function runWorkbench({ label, scenario, settings, checks }) {
  const endpoint = await startScriptedEndpoint(scenario);
  if (!endpoint) throw new Error(`the scripted endpoint was not built (${ENDPOINT_MAIN})`);
  const dirs = makeRunDirs(`ui-${label}`, { settings: settings(endpoint) });
  let results = [];
  let server, browser;
  try {
    installVsix(dirs, VSIX);
    server = await startCodeServer(dirs);
    browser = await launchChromium(dirs);
    const { page } = browser;
    await page.goto(workbenchUrl(server, dirs.workspace));
    const shot = (name) => screenshot(page, `ui-${label}-${name}`);
    results = await runChecks(checks, { page, shot, theme: label, dirs, server, endpoint });
  } finally {
    await browser?.context.close().catch(() => undefined);
    await stopCodeServer(server);
    endpoint.stop();
  }
  removeRunDirs(dirs, { failed: results.length < checks.length || results.some((result) => !result.ok) });
  return results;
}

/** The checks that run in a theme: each check's own `themes`, else light and dark. */
function checksFor(theme) {
  return CHECKS.filter((check) => (check.themes ?? MAIN_THEMES).includes(theme));
}

/** Every registered check of a colour theme against one workbench. */
function runTheme(theme) {
  return runWorkbench({ label: theme, scenario: SCENARIO, settings: () => uiSettings(theme), checks: checksFor(theme) });
}

/** The README's demo as `npm start` sets it up: the demo endpoint and nothing else configured (default settings). */
function runDemo() {
  const settings = (endpoint) => ({
    'workbench.colorTheme': THEMES.dark,
    'compactionAgent.endpoint.baseUrl': endpoint.url,
    'compactionAgent.endpoint.model': TEXT.demoModel,
  });
  return runWorkbench({ label: 'demo', scenario: 'demoSession', settings, checks: DEMO_CHECKS });
}

function copyReadmeShots(themes, ranDemo) {
  const target = path.join(ROOT, 'docs/screenshots');
  fs.mkdirSync(target, { recursive: true });
  for (const [name, [theme, shot]] of Object.entries(README_SHOTS)) {
    if (!themes.includes(theme) && !(theme === 'demo' && ranDemo)) continue;
    fs.copyFileSync(path.join(SCREENSHOT_DIR, `ui-${theme}-${shot}.png`), path.join(target, `${name}.png`));
    console.log(`ui: docs/screenshots/${name}.png ← ui-${theme}-${shot}.png`);
  }
}

async function main() {
  const started = Date.now();
  const themes = (process.env.AGENT_UI_THEMES || Object.keys(THEMES).join(',')).split(',').map((theme) => theme.trim());
  const unknown = themes.filter((theme) => !(theme in THEMES));
  if (unknown.length > 0) throw new Error(`unknown theme(s) ${unknown.join(', ')}; use ${Object.keys(THEMES).join(', ')}`);
  if (!process.argv.includes('--no-package')) packageVsix();
  await buildScriptedEndpoint();
  ensureInstalled();
  const results = [];
  // A theme whose checks are all of the workbench's own start (it loads) has nothing of its own to run.
  for (const theme of themes) if (checksFor(theme).some((check) => check.name !== workbenchLoads.name)) results.push(...(await runTheme(theme)));
  if (DEMO_CHECKS.length > 0 && !process.env.AGENT_UI_NO_DEMO) results.push(...(await runDemo()));
  const passed = results.filter((result) => result.ok).length;
  const green = results.length > 0 && passed === results.length;
  if (green && ONLY.length === 0 && process.argv.includes('--readme-shots')) copyReadmeShots(themes, DEMO_CHECKS.length > 0 && !process.env.AGENT_UI_NO_DEMO);
  console.log(`ui: finished in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in test-results/screenshots/`);
  console.log(`${passed} passed, ${results.length - passed} failed`);
  return green ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`ui: ${error instanceof Error ? error.message : String(error)}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
