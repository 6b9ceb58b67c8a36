// Row 7: VSIX and bundle sizes, and whether loading the extension bundle pays for the tokenizer (plain Node, stub `vscode`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as nodePath from 'node:path';
import { figureOf, row, verdictOf, type BenchRow, type FamilyResult } from './benchReport';
import { median } from './timing';

/** A string literal found only in o200k_base's rank table (not in cl100k_base, not in our code). */
const O200K_MARKER = /["']enschappelijke["']/;

/**
 * Child-process probe: requires `target` with a stub `vscode` module (every property and call yields
 * another stub) and prints the CPU time the require took and how much heap it retained.
 */
const PROBE = String.raw`
const Module = require('node:module');
const handler = {
  get: (target, key) => (key === Symbol.toPrimitive ? () => '' : key === 'then' || key === '__esModule' ? undefined : stub()),
  apply: () => stub(),
  construct: () => stub(),
  // Bundlers copy a CommonJS module's own keys and inherit from its prototype: make the prototype answer every name too.
  getPrototypeOf: () => anything,
};
const stub = () => new Proxy(function () {}, handler);
const anything = new Proxy({}, { get: handler.get });
const vscode = stub();
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest); };
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };
global.gc(); const heapBefore = process.memoryUsage().heapUsed;
const start = process.cpuUsage();
require(process.argv[1]);
const used = process.cpuUsage(start);
const ms = (used.user + used.system) / 1000;
global.gc(); const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1048576;
process.stdout.write(JSON.stringify({ ms, heapMb }));
`;

interface Probe {
  ms: number;
  heapMb: number;
}

/** The thrown error's message from a child's stderr (not the minified source line Node prints above it). */
function failureLine(stderr: string): string | undefined {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .find((line) => /^[A-Za-z]*Error\b/.test(line) && line.length < 400);
}

function probeRequire(target: string, runs: number): Probe | { error: string } {
  const samples: Probe[] = [];
  for (let i = 0; i < runs; i++) {
    const result = spawnSync(process.execPath, ['--expose-gc', '-e', PROBE, target], { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) return { error: failureLine(result.stderr) ?? `exit ${String(result.status)}` };
    samples.push(JSON.parse(result.stdout) as Probe);
  }
  return { ms: median(samples.map((s) => s.ms)), heapMb: median(samples.map((s) => s.heapMb)) };
}

function sizeOf(file: string): number | null {
  return existsSync(file) ? statSync(file).size : null;
}

function kb(bytes: number | null): string {
  return bytes === null ? 'missing' : `${(bytes / 1024).toFixed(0)} KiB`;
}

/** Which bundles in dist/ hold the o200k rank table. */
function filesWithTable(root: string): string[] {
  const dist = nodePath.join(root, 'dist');
  if (!existsSync(dist)) return [];
  return readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.js'))
    .filter((name) => O200K_MARKER.test(readFileSync(nodePath.join(dist, name), 'utf8')));
}

/** totalMs from the extension-host tier's record, or null when that tier has not run. */
function activationMs(root: string): number | null {
  try {
    const record = JSON.parse(readFileSync(nodePath.join(root, 'test-results', 'activation.json'), 'utf8')) as { totalMs?: unknown };
    return typeof record.totalMs === 'number' ? Math.round(record.totalMs * 10) / 10 : null;
  } catch {
    return null;
  }
}

function activationJson(root: string): string {
  const file = nodePath.join(root, 'test-results', 'activation.json');
  if (!existsSync(file)) return 'code-server activation: not measured in this run';
  return `code-server activation (test-results/activation.json): ${readFileSync(file, 'utf8').trim().slice(0, 300)}`;
}

export function activationBench(root: string, runs: number, packaged: boolean): FamilyResult {
  const vsix = sizeOf(nodePath.join(root, 'dist-vsix', 'compaction-agent.vsix'));
  const extensionFile = nodePath.join(root, 'dist', 'extension.js');
  const extension = sizeOf(extensionFile);
  const panel = sizeOf(nodePath.join(root, 'dist', 'media', 'panel.js'));
  const rows: BenchRow[] = [
    row({ key: 'size.vsixBytes', label: '7. VSIX size', value: vsix, unit: 'bytes', target: '', detail: vsix === null ? 'dist-vsix/compaction-agent.vsix missing (run `npm run bench -- --package`)' : kb(vsix) }),
    row({ key: 'size.extensionBytes', label: '7. dist/extension.js size', value: extension, unit: 'bytes', target: '', detail: kb(extension) }),
    row({ key: 'size.panelBytes', label: '7. dist/media/panel.js size', value: panel, unit: 'bytes', target: '', detail: kb(panel) }),
  ];
  const tokenizer = probeRequire(require.resolve('gpt-tokenizer/encoding/o200k_base', { paths: [root] }), runs);
  const withTable = filesWithTable(root);
  if (extension === null || 'error' in tokenizer) {
    rows.push(row({ key: 'activation.requireRatio', label: '7. require(dist/extension.js) / require(o200k encoding)', value: null, unit: '×', target: '≪ 1 (tokenizer not loaded at activation)', detail: extension === null ? 'dist/extension.js missing: not measured' : `tokenizer probe failed: ${'error' in tokenizer ? tokenizer.error : ''}` }));
  } else {
    const loaded = probeRequire(extensionFile, runs);
    const ratio = 'error' in loaded ? null : loaded.ms / tokenizer.ms;
    const lazy = 'error' in loaded ? null : loaded.heapMb < tokenizer.heapMb / 2;
    rows.push(
      row({
        key: 'activation.requireRatio',
        label: '7. require(dist/extension.js) / require(o200k encoding), stub vscode',
        value: ratio,
        unit: '×',
        target: '≪ 1 (tokenizer not loaded at activation)',
        met: ratio !== null && lazy === true && ratio < 0.5,
        detail:
          'error' in loaded
            ? `require failed: ${loaded.error}`
            : `CPU: extension ${loaded.ms.toFixed(1)} ms / +${loaded.heapMb.toFixed(1)} MB heap vs o200k ${tokenizer.ms.toFixed(1)} ms / +${tokenizer.heapMb.toFixed(1)} MB; table text in: ${withTable.join(', ') || 'no dist bundle'}; table built at require: ${lazy ? 'no' : 'yes'}`,
      }),
    );
  }
  rows.push(row({ key: 'activation.codeServer', label: '7. activation in code-server (extension.js evaluated → activate() returned)', value: activationMs(root), unit: 'ms', target: '', detail: `read from the extension-host tier's record, not measured by this run: ${activationJson(root)}` }));
  const figure = figureOf(rows);
  const bundles = readdirSafe(nodePath.join(root, 'dist')).filter((name) => name.endsWith('.js'));
  return {
    rows,
    limits: () =>
      `7. **Activation and size (${verdictOf(rows)('activation.requireRatio')}: requiring \`dist/extension.js\` costs ${figure('activation.requireRatio')} of requiring the o200k encoding):** measured on the ${packaged ? 'production bundles this run built (`npm run package`, minified)' : 'bundles present in `dist/` (not rebuilt: run with `--package`)'}: \`dist/\` holds ${bundles.map((name) => `\`${name}\``).join(', ') || 'no bundle'}; \`extension.js\` is ${figure('size.extensionBytes')}, the VSIX ${figure('size.vsixBytes')}. The o200k rank table's text is in ${withTable.map((name) => `\`${name}\``).join(', ') || 'no bundle'}${withTable.includes('extension.js') ? ', so its source is parsed when the extension loads' : ', not in `extension.js`'}; \`TokenCounter\`'s dynamic import keeps the table unbuilt until the first count, so activation does not pay for building it. Activation inside code-server is read from \`test-results/activation.json\` when the extension-host tier has written it.`,
  };
}

function readdirSafe(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { encoding: 'utf8' }) : [];
}
