// Headless Debian chromium driven by playwright-core: launch, screenshots, and the workbench's test-automation callbacks.
import fs from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH, ROOT } from './codeServer.mjs';

export const CHROMIUM = CHROMIUM_PATH;
export const SCREENSHOT_DIR = path.join(ROOT, 'test-results/screenshots');

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A fresh persistent browser context in the run's profile dir, and its first page. */
export async function launchChromium(dirs, { width = 1400, height = 900 } = {}) {
  const context = await chromium.launchPersistentContext(dirs.browserProfile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width, height },
    args: CHROMIUM_FLAGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page };
}

/** Saves test-results/screenshots/<name>.png; a failed screenshot never fails a test. */
export async function screenshot(page, name) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  try {
    await page.screenshot({ path: file });
    return file;
  } catch {
    return undefined;
  }
}

// Workbench and extension-host lines that are environment noise here (connection chatter, offline gallery,
// no Copilot/GitHub sign-in, stack frames). Test output (mocha) never matches these.
const NOISE = [
  /^\[(AgentHost|AgentHost:remote|ChatModelSelection|AccountPolicyGate|CopilotRuntime|reconnection-grace-time|Service Worker|DefaultAccount)\]/,
  /^(Resolving|Resolved) connection token|^Creating a socket|^Updating additional builtin extensions cache/,
  /^Creation of workbench contribution|^Canceled: Canceled/,
  /authentication provider 'github'|ENOTFOUND|vsda/,
  /^\s+at /,
  /^\s*$/,
];

/** Turns one codeAutomationLog call (console arguments, format string first) into text without noise lines, or undefined. */
export function automationLogLine(args) {
  const list = Array.isArray(args) ? args : [args];
  const lines = format(...list)
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .filter((line) => !NOISE.some((pattern) => pattern.test(line)));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/**
 * Registers the callbacks the workbench uses when it runs an extensionTestsPath suite (must happen before goto):
 * extension-host console output and the suite's exit code. Resolves to { exited } (a promise of that exit code).
 */
export async function exposeTestAutomation(page, onLine) {
  let resolveExit;
  const exited = new Promise((resolve) => (resolveExit = resolve));
  await page.exposeFunction('codeAutomationLog', (_type, args) => {
    const line = automationLogLine(args);
    if (line !== undefined) onLine(line);
  });
  await page.exposeFunction('codeAutomationExit', (code) => resolveExit(Number(code)));
  return { exited };
}
