// @vscode/test-cli config (`npx vscode-test`) for machines that can download desktop VS Code: runs the same dist-test suite.
// Build first (`node esbuild.mjs`). Without @vscode/test-cli, `node test/harness/runElectronTests.mjs` runs the same suite through
// @vscode/test-electron; here the suite runs in code-server instead (`npm run test:host`), as no download is possible.
export default [
  {
    label: 'host',
    files: 'dist-test/integration/**/*.test.js',
    version: '1.104.0',
    workspaceFolder: 'test/fixtures/sampleWorkspace',
    mocha: { ui: 'bdd', timeout: 60_000 },
  },
];
