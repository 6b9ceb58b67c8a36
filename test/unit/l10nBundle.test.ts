// The l10n bundle against the sources: every vscode.l10n.t message and panel string is in l10n/bundle.l10n.json.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PANEL_STRINGS } from '../../src/shared/panelStrings';

const ROOT = join(__dirname, '..', '..');
/** The one call that translates strings it does not spell out: the panel's, each listed in PANEL_STRINGS. */
const TRANSLATES_PANEL_STRINGS = join('src', 'vscode', 'panel', 'panelStrings.ts');

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

interface L10nCall {
  file: string;
  line: number;
  /** The message when the first argument is a string literal. */
  message?: string;
}

/** Every `….l10n.t(…)` call in the file. */
function l10nCalls(file: string): L10nCall[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const calls: L10nCall[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 't') {
      const target = node.expression.expression;
      if ((ts.isPropertyAccessExpression(target) && target.name.text === 'l10n') || (ts.isIdentifier(target) && target.text === 'l10n')) {
        const first = node.arguments[0];
        const literal = first !== undefined && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) ? first.text : undefined;
        calls.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, ...(literal === undefined ? {} : { message: literal }) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls;
}

function bundle(): Record<string, string> {
  return JSON.parse(readFileSync(join(ROOT, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;
}

describe('the l10n bundle', () => {
  const calls = tsFiles(join('src', 'vscode')).flatMap(l10nCalls);

  it('translates only messages spelled out at the call, so the bundle can list them', () => {
    const computed = calls.filter((call) => call.message === undefined && call.file !== TRANSLATES_PANEL_STRINGS);
    expect(computed).toEqual([]);
  });

  it('has every vscode.l10n.t message of src/vscode and every panel string, in English', () => {
    const strings = bundle();
    const needed = [...calls.flatMap((call) => (call.message === undefined ? [] : [call.message])), ...Object.values(PANEL_STRINGS)];
    expect(needed.length).toBeGreaterThan(100);
    expect(needed.filter((message) => strings[message] === undefined)).toEqual([]);
    for (const [key, value] of Object.entries(strings)) expect(value, key).toBe(key);
  });

  it('holds no message the sources no longer use', () => {
    const used = new Set([...calls.flatMap((call) => (call.message === undefined ? [] : [call.message])), ...Object.values(PANEL_STRINGS)]);
    expect(Object.keys(bundle()).filter((message) => !used.has(message))).toEqual([]);
  });
});
