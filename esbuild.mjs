// Bundles the extension (node/cjs, `vscode` external), the CLI, the webview (browser) and the extension-host test suite.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { copyPanelAssets } from './media/copyAssets.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none' };

const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: { cli: 'src/core/cli/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...common,
    entryPoints: { 'media/panel': 'media/panel.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    loader: { '.ttf': 'file' },
  },
];

// The mocha suite that runs inside the real extension host; never shipped (see .vscodeignore).
if (!production && fs.existsSync('test/integration/index.ts')) {
  const suites = fs.readdirSync('test/integration').filter((name) => name.endsWith('.test.ts'));
  builds.push({
    ...common,
    sourcemap: true,
    entryPoints: ['test/integration/index.ts', ...suites.map((name) => `test/integration/${name}`)],
    outdir: 'dist-test/integration',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
  });
}

// The scripted OpenAI-compatible endpoint used by the test tiers and `npm run demo`.
if (!production && fs.existsSync('test/support/scriptedEndpointMain.ts')) {
  builds.push({
    ...common,
    entryPoints: { scriptedEndpointMain: 'test/support/scriptedEndpointMain.ts' },
    outdir: 'dist-test/support',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  });
}

const existing = builds.filter((build) => Object.values(build.entryPoints).every((entry) => fs.existsSync(entry)));
if (watch) {
  const contexts = await Promise.all(existing.map((build) => esbuild.context(build)));
  await Promise.all(contexts.map((context) => context.watch()));
  console.log('esbuild: watching');
} else {
  await Promise.all(existing.map((build) => esbuild.build(build)));
  if (fs.existsSync('dist/cli.js')) fs.chmodSync('dist/cli.js', 0o755);
}
copyPanelAssets();
