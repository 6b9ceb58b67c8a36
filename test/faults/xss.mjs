// Fault family 6: every XSS payload rendered as summary, tool output and message in the real panel bundle in Chromium.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../harness/codeServer.mjs';
import { hostileState } from '../ui/panelSample.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Loads one of our TypeScript modules by bundling it to an ESM data URL (Node 20 cannot run .ts). */
async function importTs(entry) {
  const out = await esbuild.build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
}

/** Builds the real panel bundle into a private folder (never dist/, which other tiers build concurrently). */
async function buildPanel(dir) {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { panel: 'media/panel.ts' },
    outdir: dir,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    loader: { '.ttf': 'file' },
    logLevel: 'silent',
  });
  for (const name of ['codicon.css', 'codicon.ttf'])
    fs.copyFileSync(path.join(root, 'node_modules/@vscode/codicons/dist', name), path.join(dir, name));
}

const FAKE_HOST = `
  window.__hostState = null;
  const send = (message) => window.postMessage(message, '*');
  window.__host = { send: (state) => send({ type: 'state', state }) };
  window.acquireVsCodeApi = () => ({ postMessage() {}, getState() { return undefined; }, setState() {} });`;

function serve(assets, panelHtml, csp) {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    if (url.pathname === '/panel') {
      const nonce = `faultsnonce${Math.random().toString(36).slice(2)}`;
      let html = panelHtml({
        cspSource: `http://${request.headers.host}`,
        nonce,
        scriptUri: '/assets/panel.js',
        styleUri: '/assets/panel.css',
        codiconUri: '/assets/codicon.css',
      });
      // csp=off tests the sanitizer alone: only DOMPurify and textContent stand between a payload and the page.
      if (!csp) html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
      html = html.replace(
        `<script nonce="${nonce}"`,
        `<script nonce="${nonce}">${FAKE_HOST}</script>\n<script nonce="${nonce}"`,
      );
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(html);
      return;
    }
    const file = path.join(assets, path.basename(url.pathname));
    if (!url.pathname.startsWith('/assets/') || !fs.existsSync(file)) {
      response.writeHead(404);
      response.end();
      return;
    }
    const types = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf' };
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Renders every payload one by one; returns the payload indexes after which the flag was set. */
async function renderAll(browser, origin, payloads, flag, failures, label) {
  const page = await browser.newPage({ viewport: { width: 900, height: 1200 } });
  const seen = { foreign: [], dialogs: [] };
  page.on('request', (request) => {
    if (!request.url().startsWith(origin)) seen.foreign.push(request.url());
  });
  page.on('dialog', (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${origin}/panel`);
  const executed = [];
  for (let index = 0; index < payloads.length; index++) {
    await page.evaluate(([state]) => window.__host.send(state), [hostileState(payloads, index)]);
    await page.evaluate(() => document.querySelectorAll('details').forEach((details) => (details.open = true)));
    const fired = await page.evaluate((name) => typeof window[name] === 'number', flag);
    if (fired && !executed.length) executed.push(index);
  }
  // Everything at once too (the previous-summary field and the summarized list hold all payloads).
  await page.evaluate(([state]) => window.__host.send(state), [hostileState(payloads)]);
  await page.waitForLoadState('networkidle');
  if (await page.evaluate((name) => typeof window[name] === 'number', flag)) executed.push('all');
  if (executed.length > 0)
    failures.push(
      `${label}: script ran (first after payload ${executed[0]}: ${JSON.stringify(payloads[executed[0]] ?? 'all').slice(0, 80)})`,
    );
  if (seen.dialogs.length > 0) failures.push(`${label}: ${seen.dialogs.length} dialogs opened`);
  if (seen.foreign.length > 0)
    failures.push(`${label}: requests left the page's origin: ${seen.foreign.slice(0, 3).join(' ')}`);
  return { page, seen, executed: executed.length };
}

/** The detectors must see an unsanitized payload, or a clean result proves nothing. */
async function negativeControl(page, seen, flag, host, failures) {
  await page.evaluate(
    ([name, target]) =>
      document.body.insertAdjacentHTML(
        'beforeend',
        `<img src="https://${target}/control.png"><img src=x onerror="window.${name}=1">`,
      ),
    [flag, host],
  );
  await page.waitForFunction((name) => window[name] === 1, flag, { timeout: 10_000 }).catch(() => undefined);
  const fired = await page.evaluate((name) => window[name] === 1, flag);
  if (!fired || !seen.foreign.some((url) => url.includes(host)))
    failures.push('negative control: unsanitized HTML was not detected, so the detectors are blind');
}

function checkCsp(policy, failures) {
  const directives = new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  );
  const expectNone = ['default-src', 'connect-src', 'frame-src', 'form-action', 'base-uri'];
  for (const name of expectNone)
    if (directives.get(name)?.join(' ') !== "'none'") failures.push(`CSP: ${name} is not 'none'`);
  const scripts = directives.get('script-src') ?? [];
  if (scripts.length !== 1 || !scripts[0].startsWith("'nonce-"))
    failures.push(`CSP: script-src allows more than its nonce: ${scripts.join(' ')}`);
  if (/unsafe-inline|unsafe-eval|\*|https?:\/\/(?!127)/.test(policy.replace(/http:\/\/127\.0\.0\.1:\d+/g, '')))
    failures.push(`CSP too loose: ${policy}`);
}

async function run() {
  const failures = [];
  const assets = fs.mkdtempSync(path.join(os.tmpdir(), 'faults-xss-'));
  const { panelHtml, contentSecurityPolicy } = await importTs('src/vscode/panel/panelHtml.ts');
  const { XSS_PAYLOADS, XSS_FLAG, XSS_HOST } = await importTs('test/support/xssPayloads.ts');
  await buildPanel(assets);
  checkCsp(contentSecurityPolicy('http://127.0.0.1:1', 'abc'), failures);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  let executed = 0;
  try {
    for (const csp of [true, false]) {
      const server = await serve(assets, panelHtml, csp);
      const origin = `http://127.0.0.1:${server.address().port}`;
      const result = await renderAll(
        browser,
        origin,
        XSS_PAYLOADS,
        XSS_FLAG,
        failures,
        csp ? 'with CSP' : 'sanitizer alone (CSP removed)',
      );
      executed += result.executed;
      if (!csp) await negativeControl(result.page, result.seen, XSS_FLAG, XSS_HOST, failures);
      await result.page.close();
      server.close();
    }
  } finally {
    await browser.close();
    fs.rmSync(assets, { recursive: true, force: true });
  }
  return {
    line: `xss: ${XSS_PAYLOADS.length} payloads × 2 (with CSP, sanitizer alone), ${executed} executed`,
    failures,
  };
}

run()
  .then(({ line, failures }) => {
    for (const failure of failures) process.stderr.write(`  ${failure}\n`);
    process.stdout.write(`${line}\n`);
    process.exitCode = failures.length > 0 ? 1 : 0;
  })
  .catch((error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.stdout.write(`xss: crashed (${error?.message ?? error})\n`);
    process.exitCode = 1;
  });
