// axe-core run inside the panel's webview frame: its source is evaluated there through the debugging protocol (the
// panel's Content Security Policy lets no injected <script> run, which is what it should do).
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const BLOCKING = new Set(['serious', 'critical']);

/**
 * The serious and critical violations axe finds in the frame's document, as short records:
 * [{ id, impact, help, nodes: [{ target, summary }] }]. Rules of every WCAG 2.x level A/AA tag and axe's best practices run.
 */
export async function axeViolations(frame) {
  const loaded = await frame.evaluate(() => typeof globalThis.axe === 'object').catch(() => false);
  if (!loaded) await frame.evaluate(AXE_SOURCE);
  const result = await frame.evaluate(async () => {
    const run = await globalThis.axe.run(document, { resultTypes: ['violations'] });
    return run.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target.join(' '), summary: (node.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300) })),
    }));
  });
  return result.filter((violation) => BLOCKING.has(violation.impact));
}

/** One line per violation and node, for an error message. */
export function describeViolations(violations) {
  return violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.help}; ${violation.nodes.map((node) => `${node.target} — ${node.summary}`).join(' | ')}`).join('\n');
}
