// Runs the extension-host suite in desktop VS Code through @vscode/test-electron, for machines that can download it.
// Usage: node test/harness/runElectronTests.mjs [--version 1.104.0]   (here, use `npm run test:host`: no download is possible)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { ROOT } from './codeServer.mjs';

const versionAt = process.argv.indexOf('--version');
const version = versionAt > 0 ? process.argv[versionAt + 1] : 'stable';

execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-electron-ws-'));
fs.cpSync(path.join(ROOT, 'test/fixtures/sampleWorkspace'), workspace, { recursive: true });
const results = path.join(ROOT, 'test-results', 'electron-results.json');

try {
  await runTests({
    version,
    extensionDevelopmentPath: ROOT,
    extensionTestsPath: path.join(ROOT, 'dist-test/integration/index.js'),
    launchArgs: [workspace, '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    extensionTestsEnv: { AGENT_TEST_RESULTS: results },
  });
  console.log(fs.existsSync(results) ? fs.readFileSync(results, 'utf8') : 'suite finished');
} catch (error) {
  console.error(`electron tests failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  fs.rmSync(workspace, { recursive: true, force: true });
}
