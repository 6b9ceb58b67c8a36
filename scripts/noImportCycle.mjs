// ESLint rule of this project: no file may reach itself through its relative imports (type-only imports count too).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A file's relative import targets, resolved, by path and modification time (one lint run reads each file once). */
const importsByFile = new Map();

const EXTENSIONS = ['.ts', '.mts', '.mjs', '.js'];

/** The file a relative specifier names, or undefined when none exists (a package, or a file that is not there). */
function resolve(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(?:js|mjs)$/, '');
  const candidates = [base, ...EXTENSIONS.map((extension) => `${stem}${extension}`), ...EXTENSIONS.map((extension) => path.join(base, `index${extension}`))];
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/** The specifiers of a source's static imports and re-exports (a dynamic import() loads later and closes no circle). */
function specifiersOf(source) {
  const specifiers = [];
  for (const statement of source.statements) {
    const module = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (module && ts.isStringLiteral(module)) specifiers.push(module.text);
  }
  return specifiers;
}

function importsOf(file) {
  let stamp;
  try {
    stamp = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const known = importsByFile.get(file);
  if (known && known.stamp === stamp) return known.targets;
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const targets = [...new Set(specifiersOf(source).flatMap((specifier) => resolve(file, specifier) ?? []))];
  importsByFile.set(file, { stamp, targets });
  return targets;
}

/** The shortest chain of imports from `start` back to `goal` (both included), or undefined when there is none. */
function chainTo(start, goal) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const file = queue[at];
    for (const next of importsOf(file)) {
      if (next === goal) {
        const chain = [goal];
        for (let step = file; step !== undefined; step = previous.get(step)) chain.unshift(step);
        return chain;
      }
      if (previous.has(next)) continue;
      previous.set(next, file);
      queue.push(next);
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid circles of relative imports: a file must not reach itself through what it imports.' },
    schema: [],
    messages: { cycle: 'Import circle: {{chain}}. Move what both sides need into a file of its own, or invert one import.' },
  },
  create(context) {
    const file = path.resolve(context.filename);
    const root = context.cwd;
    const check = (node) => {
      const module = node.source;
      if (!module || typeof module.value !== 'string') return;
      const target = resolve(file, module.value);
      if (!target) return;
      const chain = target === file ? [file, file] : chainTo(target, file);
      if (!chain) return;
      const names = (target === file ? chain : [file, ...chain]).map((step) => path.relative(root, step));
      context.report({ node, messageId: 'cycle', data: { chain: names.join(' → ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
