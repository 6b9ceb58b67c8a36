// UI tier ("what only the screen proves"): installs the packaged VSIX in a fresh code-server and drives it with chromium.
// Usage: node test/ui/runUi.mjs [--no-package]   Env: AGENT_UI_THEMES=light,dark (default both)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT,
  ensureInstalled,
  installVsix,
  makeRunDirs,
  removeRunDirs,
  startCodeServer,
  stopCodeServer,
  workbenchUrl,
} from '../harness/codeServer.mjs';
import { launchChromium, screenshot } from '../harness/browser.mjs';
import { CHECKS } from './checkRegistry.mjs';
import { THEMES } from './selectors.mjs';

const VSIX = path.join(ROOT, 'dist-vsix/compaction-agent.vsix');

function packageVsix() {
  fs.rmSync(VSIX, { force: true });
  execFileSync('npm', ['run', '--silent', 'package'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (!fs.existsSync(VSIX)) throw new Error(`npm run package did not produce ${VSIX}`);
}

/** Runs every registered check against one workbench in one colour theme; returns [{ name, ok }]. */
async function runTheme(theme) {
  const dirs = makeRunDirs(`ui-${theme}`, { settings: { 'workbench.colorTheme': THEMES[theme] } });
  installVsix(dirs, VSIX);
  const results = [];
  let server, browser;
  try {
    server = await startCodeServer(dirs);
    browser = await launchChromium(dirs);
    const { page } = browser;
    await page.goto(workbenchUrl(server, dirs.workspace));
    for (const check of CHECKS) {
      const started = Date.now();
      const shot = (name) => screenshot(page, `ui-${theme}-${name}`);
      try {
        await check.run({ page, shot, theme, dirs, server });
        results.push({ name: `[${theme}] ${check.name}`, ok: true });
        console.log(`  ✔ [${theme}] ${check.name} (${Date.now() - started} ms)`);
      } catch (error) {
        await shot(`fail-${CHECKS.indexOf(check) + 1}`);
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        results.push({ name: `[${theme}] ${check.name}`, ok: false });
        console.log(`  ✘ [${theme}] ${check.name}: ${message}`);
      }
    }
  } finally {
    await browser?.context.close().catch(() => undefined);
    await stopCodeServer(server);
  }
  removeRunDirs(dirs, { failed: results.length < CHECKS.length || results.some((result) => !result.ok) });
  return results;
}

async function main() {
  const started = Date.now();
  const themes = (process.env.AGENT_UI_THEMES || 'light,dark').split(',').map((theme) => theme.trim());
  const unknown = themes.filter((theme) => !(theme in THEMES));
  if (unknown.length > 0) throw new Error(`unknown theme(s) ${unknown.join(', ')}; use ${Object.keys(THEMES).join(', ')}`);
  if (!process.argv.includes('--no-package')) packageVsix();
  ensureInstalled();
  const results = [];
  for (const theme of themes) results.push(...(await runTheme(theme)));
  const passed = results.filter((result) => result.ok).length;
  console.log(`ui: finished in ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in test-results/screenshots/`);
  console.log(`${passed} passed, ${results.length - passed} failed`);
  return results.length > 0 && passed === results.length ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`ui: ${error instanceof Error ? error.message : String(error)}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
