// Lint: strict typed rules, the layer boundaries (core and shared never import vscode; media only imports shared), no import circles.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import importCycles from './scripts/noImportCycle.mjs';

const noVscode = {
  paths: [{ name: 'vscode', message: 'src/core and src/shared are pure: only src/vscode may import vscode.' }],
  patterns: [
    { group: ['**/vscode/**', '../vscode/*', '../../vscode/*'], message: 'src/core and src/shared must not depend on src/vscode.' },
  ],
};

// The core's layers, lowest first: a folder may import only from folders before it (and itself).
const CORE_LAYERS = ['storage', 'session', 'context', 'tokens', 'tools', 'settings', 'llm', 'budget', 'compaction', 'checkpoints', 'agent', 'import', 'views', 'cli'];

/** One config per core folder: vscode is out, and so is every folder above it in CORE_LAYERS. */
const layerConfigs = CORE_LAYERS.map((layer, index) => ({
  files: [`src/core/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        ...noVscode,
        patterns: [
          ...noVscode.patterns,
          ...CORE_LAYERS.slice(index + 1).map((above) => ({
            group: [`../${above}/*`, `../../core/${above}/*`],
            message: `src/core/${layer} sits below src/core/${above} (layers: ${CORE_LAYERS.join(' < ')}).`,
          })),
        ],
      },
    ],
  },
}));

// src/vscode is grouped by what the person sees; a group imports only from groups after it (configuration, logger
// and the composition roots, extension.ts and paletteCommands.ts, sit above them all).
const VSCODE_GROUPS = [['chat'], ['panel'], ['sessions'], ['endpoint', 'tools']];

const vscodeGroupConfigs = VSCODE_GROUPS.flatMap((level, index) =>
  level.map((group) => ({
    files: [`src/vscode/${group}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [...VSCODE_GROUPS.slice(0, index).flat(), ...level.filter((other) => other !== group)].map((above) => ({
            group: [`../${above}/*`, `../../vscode/${above}/*`],
            message: `src/vscode/${group} must not depend on src/vscode/${above} (groups: ${VSCODE_GROUPS.map((l) => l.join(' | ')).join(' → ')}).`,
          })),
        },
      ],
    },
  })),
);

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'dist-vsix/**', 'dist-bench/**', 'node_modules/**', '.vscode-test/**', 'test-results/**', '**/*.d.ts'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs', 'test/harness/*.mjs', 'bench/*.mjs', 'scripts/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/shared/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', noVscode] },
  },
  ...layerConfigs,
  ...vscodeGroupConfigs,
  {
    // No circle of imports anywhere in the extension or the bench (type-only imports count: they are circles of design).
    files: ['src/**/*.ts', 'bench/**/*.ts', 'bench/**/*.mjs'],
    plugins: { project: importCycles },
    rules: { 'project/no-import-cycle': 'error' },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { ...noVscode, patterns: [...noVscode.patterns, { group: ['**/core/**', '../core/*'], message: 'src/shared holds types only.' }] },
      ],
    },
  },
  {
    files: ['media/**/*.ts'],
    languageOptions: { globals: { ...globals.browser }, parserOptions: { project: 'media/tsconfig.json', projectService: false } },
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'The webview has no vscode module.' }], patterns: [{ group: ['**/src/core/**', '**/src/vscode/**'], message: 'media/ may only import src/shared.' }] },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Functions these scripts pass to page.evaluate run in the browser.
    files: ['test/ui/**/*.mjs', 'test/faults/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
