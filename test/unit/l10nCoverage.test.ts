// No bare English in what src/vscode shows: notifications, input boxes, quick picks and chat replies go through vscode.l10n.t.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');

/** Calls whose first argument a person reads. */
const SHOWN_CALLS = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'progress', 'markdown']);
/** Object properties a person reads (quick picks, input boxes, buttons, progress titles). */
const SHOWN_PROPERTIES = new Set(['title', 'placeHolder', 'placeholder', 'prompt', 'tooltip', 'label', 'description', 'detail', 'name']);
/**
 * Still English, said so in the README: the file and command confirmations (being replaced by VS Code's inline tool
 * confirmations) and the error texts of VS Code's own models, which the core classifies.
 */
const NOT_YET = new Set(['languageModelStream.ts']);

/** Two words in a row: English a person would read (ids, paths and `$(icon)` names have none). */
const WORDS = /[A-Za-z]{2,} [A-Za-z]{2,}/;

function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
  return undefined;
}

function bareStrings(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, 'src', 'vscode', file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const check = (node: ts.Node | undefined): void => {
    const text = node ? literalText(node) : undefined;
    if (node && text !== undefined && WORDS.test(text)) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${text.slice(0, 80)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && SHOWN_CALLS.has(node.expression.name.text)) check(node.arguments[0]);
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && SHOWN_PROPERTIES.has(node.name.text)) check(node.initializer);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && SHOWN_PROPERTIES.has(node.left.name.text)) check(node.right);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('localized UI strings in src/vscode', () => {
  it('shows no bare English sentence in notifications, pickers, input boxes or chat replies', () => {
    // Every file under src/vscode, in its group's folder (chat/, panel/, sessions/, endpoint/, tools/) or at the root.
    const files = readdirSync(join(ROOT, 'src', 'vscode'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts') && !NOT_YET.has(basename(name)));
    expect(files.length).toBeGreaterThan(30);
    expect(files.flatMap(bareStrings)).toEqual([]);
  });

  it('would catch one', () => {
    const sample = ts.createSourceFile('x.ts', "vscode.window.showInformationMessage('Nothing to do here.');", ts.ScriptTarget.ES2022, true);
    let text: string | undefined;
    sample.forEachChild(function visit(node): void {
      if (ts.isCallExpression(node)) text = literalText(node.arguments[0] as ts.Node);
      node.forEachChild(visit);
    });
    expect(text !== undefined && WORDS.test(text)).toBe(true);
  });
});
