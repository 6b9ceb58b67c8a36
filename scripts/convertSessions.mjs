// Converts public recorded agent sessions (mini-swe-agent, Claude Code, Codex CLI, Gemini CLI, Cline, Roo Code, Crush, OpenCode, Copilot CLI) to pi-format session JSONL for the value bench.
// Usage: node scripts/convertSessions.mjs <mini-swe-agent|claude-code|codex|gemini-cli|cline|roo-code|crush|opencode|copilot-cli> <input file> <output .jsonl.gz> [--source <text>] [--start <ISO time>]
// The converters are bench/sessionConverters.ts (unit-tested); this bundles its command line with esbuild and runs it.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await esbuild.build({
  absWorkingDir: root,
  entryPoints: { convertSessions: 'bench/convertSessions.ts' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outdir: 'dist-bench',
  logLevel: 'warning',
});

const result = spawnSync(process.execPath, [path.join(root, 'dist-bench', 'convertSessions.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
