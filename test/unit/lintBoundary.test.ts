// The project's real ESLint config enforces the layer boundaries: core stays vscode-free, media only imports src/shared.
import * as path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

let eslint: ESLint;

beforeAll(() => {
  // The probe files exist only in memory, so no tsconfig contains them: lint them without type information.
  // The boundary rules (no-restricted-imports) are syntactic and come from the project's own config.
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: [{ files: ['**/__probe__.ts'], ...tseslint.configs.disableTypeChecked }],
  });
});

async function restrictedImportMessages(relativePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, relativePath) });
  if (!result) throw new Error(`ESLint returned no result for ${relativePath}`);
  const parseErrors = result.messages.filter((message) => message.fatal);
  expect(parseErrors.map((message) => message.message)).toEqual([]);
  return result.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

describe('layer boundaries in eslint.config.mjs', () => {
  it('rejects `vscode` imported from src/core', async () => {
    const messages = await restrictedImportMessages(
      'src/core/__probe__.ts',
      "import * as vscode from 'vscode';\nexport const version: string = vscode.version;\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/only src\/vscode may import vscode/);
  });

  it('rejects src/core depending on src/vscode', async () => {
    const messages = await restrictedImportMessages(
      'src/core/__probe__.ts',
      "import { logger } from '../vscode/logger';\nexport const used = logger;\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/must not depend on src\/vscode/);
  });

  it('rejects media importing src/core', async () => {
    const messages = await restrictedImportMessages(
      'media/__probe__.ts',
      "import { SETTINGS_SECTION } from '../src/core/settings/settings';\nexport const section = SETTINGS_SECTION;\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/media\/ may only import src\/shared/);
  });

  it('rejects a src/vscode group depending on a group before it, and accepts the way down', async () => {
    const up = await restrictedImportMessages(
      'src/vscode/tools/__probe__.ts',
      "import { ChatReplies } from '../chat/chatReplies';\nexport const replies = ChatReplies;\n",
    );
    expect(up).toHaveLength(1);
    expect(up[0]).toMatch(/src\/vscode\/tools must not depend on src\/vscode\/chat/);
    const sideways = await restrictedImportMessages(
      'src/vscode/endpoint/__probe__.ts',
      "import { TerminalRunner } from '../tools/terminalRunner';\nexport const runner = TerminalRunner;\n",
    );
    expect(sideways).toHaveLength(1);
    const down = await restrictedImportMessages(
      'src/vscode/chat/__probe__.ts',
      "import { AgentSessions } from '../sessions/agentSessions';\nexport const sessions = AgentSessions;\n",
    );
    expect(down).toEqual([]);
  });

  it('accepts a clean core file and media importing src/shared', async () => {
    const core = await restrictedImportMessages(
      'src/core/__probe__.ts',
      "import * as fs from 'node:fs';\nexport const exists = (file: string): boolean => fs.existsSync(file);\n",
    );
    const media = await restrictedImportMessages(
      'media/__probe__.ts',
      "import type { BudgetView } from '../src/shared/panelViewModels';\nexport type View = BudgetView;\n",
    );
    expect([...core, ...media]).toEqual([]);
  });
});
