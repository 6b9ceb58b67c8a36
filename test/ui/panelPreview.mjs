// Static preview of the compaction panel in headless Chromium: screenshots per theme, hostile-content rendering, draft restore.
// Usage: node test/ui/panelPreview.mjs   (builds with `node esbuild.mjs` first; writes test-results/screenshots/panel-*.png)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH, ensureBrowser } from '../harness/codeServer.mjs';
import { copyPanelAssets } from '../../media/copyAssets.mjs';
import { THEMES, hostileState, sampleState } from './panelSample.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(root, 'test-results', 'screenshots');
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

/** Loads a TypeScript module of ours by bundling it to an ESM data URL (Node 20 cannot run .ts). */
async function importTs(entry) {
  const out = await esbuild.build({ entryPoints: [path.join(root, entry)], bundle: true, write: false, format: 'esm', platform: 'node' });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
}

const { panelHtml } = await importTs('src/vscode/panel/panelHtml.ts');
const { XSS_PAYLOADS, XSS_FLAG, XSS_HOST } = await importTs('test/support/xssPayloads.ts');
const { parseWebviewMessage } = await importTs('src/shared/panelProtocol.ts');

execFileSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
copyPanelAssets(root);

function fakeHost(theme, state) {
  const vars = Object.entries(THEMES[theme]).map(([name, value]) => `${name}:${value}`).join(';');
  const json = JSON.stringify(state ?? null).replace(/</g, '\\u003c');
  const script = `
    window.__posted = [];
    window.__hostState = ${json};
    const send = (message) => window.postMessage(message, '*');
    window.__host = { send: (state) => send({ type: 'state', state }), notice: (notice) => send({ type: 'notice', notice }) };
    window.acquireVsCodeApi = () => ({
      postMessage(message) {
        window.__posted.push(message);
        if (message.type === 'ready' && window.__hostState) send({ type: 'state', state: window.__hostState });
        if (message.type === 'countTokens') send({ type: 'tokenCount', requestId: message.requestId, tokens: Math.ceil(message.text.length / 4) });
      },
      getState() { const saved = sessionStorage.getItem('vscodeState'); return saved ? JSON.parse(saved) : undefined; },
      setState(state) { sessionStorage.setItem('vscodeState', JSON.stringify(state)); },
    });`;
  return { css: `:root{${vars}} body.vscode-high-contrast{}`, script };
}

function serve() {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    if (url.pathname === '/panel') {
      const origin = `http://${request.headers.host}`;
      const nonce = 'previewnonce' + Math.random().toString(36).slice(2);
      const scenario = url.searchParams.get('state') ?? 'sample';
      const state = scenario === 'sample' ? sampleState() : scenario === 'hostile' ? hostileState(XSS_PAYLOADS) : scenario === 'none' ? null : undefined;
      const host = fakeHost(url.searchParams.get('theme') ?? 'dark', state);
      let html = panelHtml({ cspSource: origin, nonce, scriptUri: '/dist/media/panel.js', styleUri: '/dist/media/panel.css', codiconUri: '/dist/media/codicon.css' });
      // csp=off tests the sanitizer alone: nothing but DOMPurify and textContent stands between a payload and the page.
      if (url.searchParams.get('csp') === 'off') html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
      html = html.replace(`<script nonce="${nonce}"`, `<style nonce="${nonce}">${host.css}</style><script nonce="${nonce}">${host.script}</script>\n<script nonce="${nonce}"`);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(html);
      return;
    }
    const file = path.join(root, path.normalize(url.pathname));
    if (!file.startsWith(path.join(root, 'dist', 'media')) || !fs.existsSync(file)) {
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

ensureBrowser();
const server = await serve();
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** A page that records every foreign request, dialog, console error and CSP violation. */
async function openPage(query, viewport = { width: 900, height: 1200 }) {
  const page = await browser.newPage({ viewport });
  const log = { foreign: [], dialogs: [], errors: [] };
  page.on('request', (request) => {
    if (!request.url().startsWith(origin)) log.foreign.push(request.url());
  });
  page.on('dialog', (dialog) => {
    log.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => log.errors.push(String(error)));
  await page.goto(`${origin}/panel?${query}`);
  await page.waitForSelector('.budget-bar, .card');
  return { page, log };
}

async function openAllFolds(page) {
  await page.evaluate(() => document.querySelectorAll('details').forEach((details) => (details.open = true)));
}

/** Elements or attributes in the panel that could run script or fetch something. */
async function dangerousNodes(page) {
  return page.evaluate(() => {
    const found = [];
    for (const element of document.querySelectorAll('#app *')) {
      const tag = element.tagName.toLowerCase();
      if (['script', 'iframe', 'img', 'svg', 'math', 'object', 'embed', 'link', 'style', 'a', 'form', 'video', 'audio', 'base', 'meta', 'source', 'picture'].includes(tag)) found.push(tag);
      for (const attribute of element.attributes) {
        // The budget bar sizes its own segments through CSSOM; that style attribute is ours.
        if (attribute.name === 'style' && element.classList.contains('segment')) continue;
        if (/^on/i.test(attribute.name) || /^(href|src|srcset|srcdoc|action|background|poster|style|xlink:href)$/i.test(attribute.name)) found.push(`${tag}[${attribute.name}]`);
      }
    }
    return found;
  });
}

async function themeShots() {
  fs.mkdirSync(shots, { recursive: true });
  for (const theme of Object.keys(THEMES)) {
    const { page, log } = await openPage(`theme=${theme}`);
    await page.waitForSelector('.token-count:not(:empty)');
    await page.screenshot({ path: path.join(shots, `panel-${theme}.png`), fullPage: true });
    await openAllFolds(page);
    await page.screenshot({ path: path.join(shots, `panel-${theme}-expanded.png`), fullPage: true });
    check(log.errors.length === 0, `${theme}: no page errors ${log.errors.join(' | ')}`);
    await page.close();
  }
  const { page } = await openPage('theme=dark&state=none', { width: 600, height: 500 });
  await page.screenshot({ path: path.join(shots, 'panel-empty.png'), fullPage: true });
  await page.close();
}

async function hostileRendering(csp) {
  const { page, log } = await openPage(`theme=dark&state=hostile&csp=${csp}`);
  await openAllFolds(page);
  for (let index = 0; index < XSS_PAYLOADS.length; index++) {
    await page.evaluate(([state]) => window.__host.send(state), [hostileState(XSS_PAYLOADS, index)]);
    await openAllFolds(page);
  }
  await page.evaluate(() => window.__host.notice({ level: 'error', text: '<img src=x onerror=alert(1)>' }));
  await page.waitForTimeout(300);
  const flag = await page.evaluate((name) => Object.prototype.hasOwnProperty.call(window, name) && typeof window[name] === 'number', XSS_FLAG);
  check(!flag, `csp=${csp}: no payload ran script (window.${XSS_FLAG} unset) over ${XSS_PAYLOADS.length} payloads`);
  check(log.dialogs.length === 0, `csp=${csp}: no dialog opened ${log.dialogs.join(' | ')}`);
  check(log.foreign.length === 0, `csp=${csp}: no request left ${origin} ${log.foreign.slice(0, 5).join(' ')}`);
  check(!log.foreign.some((url) => url.includes(XSS_HOST)), `csp=${csp}: nothing fetched from ${XSS_HOST}`);
  const dangerous = await dangerousNodes(page);
  check(dangerous.length === 0, `csp=${csp}: no script, frame, image, link or handler in the DOM ${[...new Set(dangerous)].join(', ')}`);
  if (csp === 'off') {
    // Negative control: the same payload through innerHTML must trip the detectors, or they prove nothing.
    await page.evaluate(([flag, host]) => document.body.insertAdjacentHTML('beforeend', `<img src="https://${host}/control.png"><img src=x onerror="window.${flag}=1">`), [XSS_FLAG, XSS_HOST]);
    await page.waitForFunction((name) => window[name] === 1, XSS_FLAG);
    check(log.foreign.some((url) => url.includes(XSS_HOST)), 'negative control: unsanitized HTML is detected (flag set, request seen)');
  }
  if (csp === 'on') await page.screenshot({ path: path.join(shots, 'panel-xss.png'), fullPage: false });
  await page.close();
}

async function draftAndKeyboard() {
  const { page } = await openPage('theme=light');
  await page.fill('#summary-input', 'My edited summary');
  await page.reload();
  await page.waitForSelector('#summary-input');
  check((await page.inputValue('#summary-input')) === 'My edited summary', 'the draft survives a reload (setState/getState)');
  await page.focus('#summary-input');
  await page.evaluate(() => window.__host.send({ ...window.__hostState, budget: { ...window.__hostState.budget, used: 60000 } }));
  const focusKept = await page.evaluate(() => document.activeElement?.id === 'summary-input' && document.querySelector('#summary-input').value === 'My edited summary');
  check(focusKept, 'a state push while editing keeps the text and the focus');
  await page.keyboard.press('Escape');
  const warned = await page.textContent('[role=status].notice');
  check(/Escape again/.test(warned ?? ''), 'first Escape with edits only warns');
  await page.keyboard.press('Escape');
  await page.click('text=Apply');
  // The count is debounced: wait for the request rather than for a fixed time.
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'countTokens'), null, { timeout: 10_000 }).catch(() => undefined);
  const posted = await page.evaluate(() => window.__posted);
  check(posted.some((m) => m.type === 'cancelProposal' && m.proposalId === 'p1'), 'second Escape cancels the review');
  check(posted.some((m) => m.type === 'applySummary' && m.edited === true && m.summary === 'My edited summary'), 'Apply sends the edited text with edited=true');
  check(posted.some((m) => m.type === 'countTokens'), 'the live token count is requested from the host');
  await page.evaluate(() => window.__host.send({ ...window.__hostState, proposal: { ...window.__hostState.proposal, summary: 'Regenerated summary' } }));
  check((await page.inputValue('#summary-input')) === 'Regenerated summary', 'a regenerated summary replaces the old draft');
  const invalid = posted.map((m) => parseWebviewMessage(m)).filter((r) => 'error' in r);
  check(invalid.length === 0, `every message the webview posted passes parseWebviewMessage ${invalid.map((r) => r.error).join(' | ')}`);
  await page.close();
}

try {
  await themeShots();
  await hostileRendering('on');
  await hostileRendering('off');
  await draftAndKeyboard();
} finally {
  await browser.close();
  server.close();
}
console.log(failures.length === 0 ? `panel preview: all checks passed; screenshots in ${path.relative(root, shots)}` : `panel preview: ${failures.length} check(s) failed`);
process.exitCode = failures.length === 0 ? 0 : 1;
