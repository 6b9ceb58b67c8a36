// The lint rule against import circles: it finds one through type-only imports and re-exports, names the chain, and
// the project's configuration applies it to src/ and bench/.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, describe, expect, it } from 'vitest';
import importCycles from '../../scripts/noImportCycle.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function lint(files: Record<string, string>): Promise<Record<string, string[]>> {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'import-cycle-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(nodePath.join(dir, name), text);
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { project: importCycles }, rules: { 'project/no-import-cycle': 'error' } }],
  });
  const results = await eslint.lintFiles(Object.keys(files));
  return Object.fromEntries(results.map((result) => [nodePath.basename(result.filePath), result.messages.map((message) => message.message)]));
}

describe('no-import-cycle', () => {
  it('reports each import of a circle with its chain, type-only imports and re-exports included', async () => {
    const found = await lint({
      'a.ts': "import { b } from './b';\nexport const a = b + 1;\n",
      'b.ts': "export { c as b } from './c';\n",
      'c.ts': "import type { A } from './d';\nexport const c: A = 1;\n",
      'd.ts': "import { a } from './a';\nexport type A = typeof a;\n",
      'e.ts': "import { a } from './a';\nexport const e = a;\n",
    });
    expect(found['a.ts']).toEqual(['Import circle: a.ts → b.ts → c.ts → d.ts → a.ts. Move what both sides need into a file of its own, or invert one import.']);
    expect(found['b.ts']).toHaveLength(1);
    expect(found['c.ts']).toHaveLength(1);
    expect(found['d.ts']).toEqual(['Import circle: d.ts → a.ts → b.ts → c.ts → d.ts. Move what both sides need into a file of its own, or invert one import.']);
    // Importing a file of a circle is no circle.
    expect(found['e.ts']).toEqual([]);
  });

  it('leaves a dynamic import and package imports alone', async () => {
    const found = await lint({
      'a.ts': "import { readFileSync } from 'node:fs';\nexport const a = (): Promise<unknown> => import('./b');\nexport const read = readFileSync;\n",
      'b.ts': "import { a } from './a';\nexport const b = a;\n",
    });
    expect(found).toEqual({ 'a.ts': [], 'b.ts': [] });
  });

  it('is on for src/ and bench/ in the project configuration', async () => {
    const eslint = new ESLint({ cwd: nodePath.resolve(__dirname, '../..') });
    for (const file of ['src/core/compaction/compaction.ts', 'src/vscode/extension.ts', 'bench/main.ts']) {
      const config = (await eslint.calculateConfigForFile(file)) as { rules: Record<string, unknown> };
      expect(config.rules['project/no-import-cycle'], file).toEqual([2]);
    }
  });
});
