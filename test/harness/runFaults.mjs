// Reliability tier (npm run test:faults): bundles each fault family with esbuild, runs it, prints one line per family.
import * as esbuild from 'esbuild';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBrowser } from './codeServer.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// One folder per invocation: a second run (or testAll) must not rebuild the scripts a running family is spawning.
const outdir = path.join(root, 'dist-test/faults', `run-${process.pid}`);

/** Each family: its entry script, child scripts it spawns, the modules it needs, and a wall-time limit (module: a plain .mjs run as is). */
const FAMILIES = [
  {
    name: 'kill-9',
    script: 'killNine',
    children: ['killNineWriter'],
    needs: ['src/core/session/sessionLog.ts'],
    limitSeconds: 200,
  },
  {
    name: 'corruption',
    script: 'corruption',
    children: [],
    needs: ['src/core/session/sessionLog.ts'],
    limitSeconds: 90,
  },
  {
    name: 'hostile logs',
    script: 'hostileLogs',
    children: [],
    needs: ['src/core/session/sessionLog.ts', 'src/core/import/piImport.ts'],
    limitSeconds: 180,
  },
  {
    name: 'disk-full',
    script: 'diskFull',
    children: [],
    needs: ['src/core/session/sessionLog.ts', 'src/core/session/sessionIndex.ts'],
    limitSeconds: 60,
  },
  {
    name: 'two-writers',
    script: 'twoWriters',
    children: ['lockHolder'],
    needs: ['src/core/storage/sessionLock.ts'],
    limitSeconds: 60,
  },
  {
    name: 'endpoint faults',
    script: 'endpointFaults',
    children: [],
    needs: [
      'src/core/agent/agentLoop.ts',
      'src/core/compaction/compaction.ts',
      'src/core/llm/openaiChatClient.ts',
      'test/support/scriptedEndpoint.ts',
    ],
    limitSeconds: 120,
  },
  {
    name: 'xss',
    browser: true,
    script: 'xss',
    module: true,
    children: [],
    needs: ['test/support/xssPayloads.ts', 'test/ui/panelPreview.mjs'],
    limitSeconds: 120,
  },
  {
    name: 'secrets',
    script: 'secrets',
    children: [],
    needs: ['src/core/agent/agentLoop.ts', 'src/core/llm/openaiChatClient.ts', 'test/support/scriptedEndpoint.ts'],
    limitSeconds: 90,
  },
  {
    name: 'path safety',
    script: 'pathSafety',
    children: [],
    needs: ['src/core/tools/pathSafety.ts', 'src/core/tools/fileTools.ts'],
    limitSeconds: 60,
  },
  {
    name: 'hostile tools',
    script: 'hostileTools',
    children: [],
    needs: ['src/core/tools/textSearch.ts', 'src/core/tools/safeFileIo.ts', 'src/core/tools/shellCommand.ts'],
    limitSeconds: 150,
  },
  {
    name: 'hostile sessions',
    script: 'hostileSessions',
    children: [],
    needs: ['src/core/session/warningSummary.ts', 'src/core/checkpoints/fileCheckpoints.ts'],
    limitSeconds: 240,
  },
  {
    name: 'hostile images',
    script: 'hostileImages',
    children: [],
    needs: ['src/core/context/imageSniff.ts', 'src/core/llm/imageRejections.ts'],
    limitSeconds: 60,
  },
  {
    name: 'storage lifecycle',
    script: 'storageLifecycle',
    children: [],
    needs: ['src/core/storage/blobCollector.ts', 'src/core/checkpoints/changeRecorder.ts'],
    limitSeconds: 90,
  },
  {
    name: 'confined storage',
    script: 'confinedStorage',
    children: [],
    needs: ['src/core/session/sessionFiles.ts', 'src/core/checkpoints/fileCheckpoints.ts'],
    limitSeconds: 60,
  },
  {
    name: 'markdown export',
    script: 'markdownExport',
    children: [],
    needs: ['src/core/session/sessionMarkdown.ts'],
    limitSeconds: 60,
  },
  {
    name: 'terminal stop',
    script: 'terminalStop',
    children: [],
    needs: ['src/core/tools/commandStop.ts', 'src/core/tools/processTree.ts'],
    limitSeconds: 90,
  },
  {
    name: 'hostile workspace',
    script: 'hostileWorkspace',
    children: ['workspaceKillChild'],
    needs: ['src/core/checkpoints/commandSnapshots.ts', 'src/core/checkpoints/folderSnapshot.ts', 'src/core/checkpoints/folderHandles.ts'],
    limitSeconds: 300,
  },
  {
    name: 'hostile replies',
    script: 'hostileReplies',
    children: [],
    needs: ['src/core/agent/toolStep.ts', 'src/core/tools/delegateTool.ts', 'src/core/llm/streamAssembler.ts'],
    limitSeconds: 120,
  },
  {
    name: 'small hostile',
    script: 'smallHostile',
    children: [],
    needs: ['src/core/storage/tempName.ts', 'src/core/llm/openaiChatClient.ts', 'src/core/tools/pathSafety.ts'],
    limitSeconds: 60,
  },
];

async function bundle(family) {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [family.script, ...family.children].map((name) => `test/faults/${name}.ts`),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outdir,
    // Dependencies stay in node_modules (required at run time): playwright-core and openai load files dynamically.
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'silent',
  });
}

function runScript(family) {
  return new Promise((resolve) => {
    const entry = family.module
      ? path.join(root, 'test/faults', `${family.script}.mjs`)
      : path.join(outdir, `${family.script}.js`);
    const child = spawn(process.execPath, ['--enable-source-maps', entry], {
      cwd: root,
      env: { ...process.env, FAULTS_DIST: outdir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n(stopped after ${family.limitSeconds} s)`;
      child.kill('SIGKILL');
    }, family.limitSeconds * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.trim().split('\n').filter(Boolean);
      resolve({
        ok: code === 0 && lines.length > 0,
        line: lines.at(-1) ?? `${family.name}: no result (exit ${code})`,
        stderr,
      });
    });
  });
}

async function runFamily(family) {
  const missing = family.needs.filter((file) => !existsSync(path.join(root, file)));
  if (missing.length > 0)
    return { ok: false, line: `${family.name}: not run, missing ${missing.join(', ')}`, stderr: '' };
  try {
    if (!family.module) await bundle(family);
  } catch (error) {
    const text =
      error.errors
        ?.map((item) => `${item.location?.file ?? ''}:${item.location?.line ?? ''} ${item.text}`)
        .join('\n') ?? String(error);
    return { ok: false, line: `${family.name}: could not be built`, stderr: text };
  }
  return runScript(family);
}

const only = process.argv.slice(2);
const selected =
  only.length > 0 ? FAMILIES.filter((family) => only.includes(family.script) || only.includes(family.name)) : FAMILIES;
// The XSS family renders the panel in Debian's chromium: installed here, visibly, when a machine lacks it.
if (selected.some((family) => family.browser)) ensureBrowser();
let passed = 0;
let failed = 0;
const started = Date.now();
for (const family of selected) {
  const familyStart = Date.now();
  const result = await runFamily(family);
  const seconds = ((Date.now() - familyStart) / 1000).toFixed(1);
  console.log(`${result.ok ? 'PASS' : 'FAIL'} ${result.line}  (${seconds} s)`);
  if (!result.ok) {
    const detail = result.stderr.trim().split('\n').slice(-30);
    for (const line of detail) if (line) console.log(`     ${line}`);
  }
  if (result.ok) passed++;
  else failed++;
}
console.log(`${passed} passed, ${failed} failed  (${((Date.now() - started) / 1000).toFixed(0)} s)`);
rmSync(outdir, { recursive: true, force: true });
process.exitCode = failed > 0 ? 1 : 0;
