// Writes l10n/bundle.l10n.json from the sources: every vscode.l10n.t message in src/vscode and the panel's strings.
// `node scripts/l10nBundle.mjs` writes it; `--check` only says whether it is up to date (exit 1 when not).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = path.join(root, 'l10n', 'bundle.l10n.json');

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function parse(file) {
  return ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
}

function isStringLiteral(node) {
  return node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));
}

/** The literal first argument of every `….l10n.t(…)` call in the file. */
function l10nMessages(file) {
  const messages = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 't') {
      const target = node.expression.expression;
      const isL10n = (ts.isPropertyAccessExpression(target) && target.name.text === 'l10n') || (ts.isIdentifier(target) && target.text === 'l10n');
      const first = node.arguments[0];
      if (isL10n && isStringLiteral(first)) messages.push(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return messages;
}

/** The English values of PANEL_STRINGS in src/shared/panelStrings.ts. */
function panelStrings() {
  const values = [];
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'PANEL_STRINGS') {
      let init = node.initializer;
      while (init && (ts.isSatisfiesExpression(init) || ts.isAsExpression(init))) init = init.expression;
      if (init && ts.isObjectLiteralExpression(init)) {
        for (const property of init.properties) if (ts.isPropertyAssignment(property) && isStringLiteral(property.initializer)) values.push(property.initializer.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(path.join(root, 'src', 'shared', 'panelStrings.ts')));
  return values;
}

/** The bundle the sources need: each message mapped to itself (English), sorted. */
export function expectedBundle() {
  const messages = new Set([...sourceFiles(path.join(root, 'src', 'vscode')).flatMap(l10nMessages), ...panelStrings()]);
  return Object.fromEntries([...messages].sort().map((message) => [message, message]));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = `${JSON.stringify(expectedBundle(), null, 2)}\n`;
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(BUNDLE) ? fs.readFileSync(BUNDLE, 'utf8') : '';
    if (current !== text) {
      console.error('l10n/bundle.l10n.json is out of date: run `npm run l10n`.');
      process.exit(1);
    }
  } else {
    fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
    fs.writeFileSync(BUNDLE, text);
    console.log(`l10n/bundle.l10n.json: ${Object.keys(JSON.parse(text)).length} strings`);
  }
}
