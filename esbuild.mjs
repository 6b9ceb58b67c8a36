// Bundles the extension (node/cjs, `vscode` external), the CLI, the webview (browser) and the extension-host test suite.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { copyPanelAssets } from './media/copyAssets.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

// A production build starts clean so no stale source maps end up in the VSIX; vsce writes into dist-vsix/.
if (production) {
  fs.rmSync('dist', { recursive: true, force: true });
  fs.mkdirSync('dist-vsix', { recursive: true });
}

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none' };

/** The BPE tables (3.5 MB of source) stay out of extension.js: each is its own file, required on first count. */
const ENCODINGS = ['o200k_base', 'cl100k_base'];
const lazyEncodings = {
  name: 'lazy-encodings',
  setup(build) {
    build.onResolve({ filter: /^gpt-tokenizer\/encoding\/(o200k_base|cl100k_base)$/ }, (args) => ({
      path: `./encodings/${args.path.split('/').pop()}.js`,
      external: true,
    }));
  },
};

const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [lazyEncodings],
  },
  {
    ...common,
    sourcemap: false,
    entryPoints: Object.fromEntries(ENCODINGS.map((name) => [`encodings/${name}`, `node_modules/gpt-tokenizer/cjs/encoding/${name}.js`])),
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
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
