// `npm run bench`: bundles bench/main.ts with esbuild into dist-bench/ and runs it in Node, passing argv through (e.g. --json).
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await esbuild.build({
  absWorkingDir: root,
  entryPoints: { bench: 'bench/main.ts', hostileLoadChild: 'bench/hostileLoadChild.ts', growthChild: 'bench/growthChild.ts' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outdir: 'dist-bench',
  sourcemap: 'inline',
  logLevel: 'warning',
});

// --expose-gc lets the benchmarks collect garbage between timed runs, so a GC pause lands in no one's sample.
const result = spawnSync(process.execPath, ['--expose-gc', '--enable-source-maps', path.join(root, 'dist-bench', 'bench.js'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
