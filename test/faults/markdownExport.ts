// Fault family (class 6): hostile text in every exported field (answers, tool names, model ids, timestamps, file names, titles) cannot break the Markdown out.
import { sessionMarkdown } from '../../src/core/session/sessionMarkdown';
import type { SessionEntry } from '../../src/core/session/entries';
import { passed, runCases, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';
import { SeededRandom } from './seededRandom';

/** Pieces hostile text is made of: fences, headings, raw HTML blocks and inline HTML, links, tables, control characters. */
const PIECES = [
  '```', '````js', '~~~', '~~~~~', '`', '``', '\n# Owned\n', '\n## Turn 99 · fake\n', '\n---\n', '\n===\n', '<!--', '-->', '<script>alert(1)</script>', '<script>', '<pre>', '<style>', '<textarea>',
  '<img src=x onerror=alert(1)>', '<a href="javascript:alert(1)">x</a>', '</details>', '<details open>', '<?php', '<![CDATA[', '<!DOCTYPE html>', '[x](javascript:alert(1))', '| a | b |\n|---|---|',
  '\u0000', '\r', '\r\n', '\u2028', '    indented code', '> quote', '* list', '1. item', '&lt;', '&#60;', '\\', '*', '_', '**bold', 'plain words',
];

/** Headings, raw HTML and fence state of a document, by a CommonMark-style line scan (code blocks and code spans skipped). */
function structure(markdown: string): { headings: string[]; openAtEnd: boolean; rawHtml: string[] } {
  let open: string | undefined;
  const headings: string[] = [];
  const rawHtml: string[] = [];
  for (const line of markdown.split(/\r\n?|\n/)) {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open !== undefined) {
      if (fence && fence[1]?.[0] === open[0] && (fence[1]?.length ?? 0) >= open.length && !fence[2]?.trim()) open = undefined;
      continue;
    }
    if (fence && !(fence[1]?.[0] === '`' && fence[2]?.includes('`'))) open = fence[1];
    else if (/^#{1,6}( |$)/.test(line)) headings.push(line);
    else if (/(^|[^\\])<[!?/a-zA-Z]/.test(line.replace(/(`+)[^`]*?\1/g, ''))) rawHtml.push(line);
  }
  return { headings, openAtEnd: open !== undefined, rawHtml };
}

function hostileText(random: SeededRandom): string {
  return Array.from({ length: random.int(1, 8) }, () => random.pick(PIECES)).join(random.pick(['', ' ', '\n']));
}

const FIELDS = ['answer', 'toolName', 'model', 'timestamp', 'fileName', 'title', 'all'] as const;

function session(field: (typeof FIELDS)[number], text: string): { title: string; path: SessionEntry[] } {
  const on = (name: (typeof FIELDS)[number], fallback: string): string => (field === name || field === 'all' ? text : fallback);
  const path: SessionEntry[] = [
    { type: 'user', id: 'u1', parentId: null, timestamp: on('timestamp', '2025-01-01T00:00:00Z'), text: 'first request' },
    { type: 'assistant', id: 'a1', parentId: 'u1', timestamp: 't', text: on('answer', 'answer one'), model: on('model', 'gpt-4o'), toolCalls: [{ id: 'c1', name: on('toolName', 'read_file'), arguments: '{}' }] },
    { type: 'toolResult', id: 'r1', parentId: 'a1', timestamp: 't', toolCallId: 'c1', toolName: on('toolName', 'read_file'), content: 'result', isError: false },
    { type: 'fileRestore', id: 'f1', parentId: 'r1', timestamp: 't', targetId: 'u1', changes: [{ path: on('fileName', 'src/a.ts'), absolute: '/w/a', before: null, after: null }] },
    { type: 'user', id: 'u2', parentId: 'f1', timestamp: on('timestamp', '2025-01-01T00:01:00Z'), text: 'second request' },
    { type: 'assistant', id: 'a2', parentId: 'u2', timestamp: 't', text: 'LAST ANSWER', toolCalls: [] },
  ];
  return { title: on('title', 'Session'), path };
}

function cases(): HostileCase[] {
  return FIELDS.flatMap((field) =>
    Array.from({ length: 60 }, (_, seed) => ({
      name: `${field}, seed ${seed}`,
      run: () => {
        const outcome = passed();
        const text = hostileText(new SeededRandom(seed * 31 + field.length));
        const { title, path } = session(field, text);
        const shape = structure(sessionMarkdown(title, path));
        // An answer is the model's own Markdown: its headings are kept; everything else adds none.
        const ownHeadings = field === 'answer' || field === 'all' ? undefined : 3;
        const turns = [1, 2].filter((turn) => shape.headings.some((line) => line.startsWith(`## Turn ${turn} · `)));
        if (turns.length !== 2 || (ownHeadings !== undefined && shape.headings.length !== ownHeadings)) outcome.failures.push(`headings ${JSON.stringify(shape.headings).slice(0, 120)} from ${JSON.stringify(text).slice(0, 120)}`);
        if (shape.openAtEnd) outcome.failures.push(`a code block stays open to the end: ${JSON.stringify(text).slice(0, 120)}`);
        if (shape.rawHtml.length > 0) outcome.failures.push(`raw HTML: ${shape.rawHtml[0]?.slice(0, 120)}`);
        if (!sessionMarkdown(title, path).includes('LAST ANSWER')) outcome.failures.push('the last answer is missing');
        return Promise.resolve(outcome);
      },
    })),
  );
}

runFamily('markdown export', () => runCases('markdown export', cases(), () => `${FIELDS.length} fields × 60 seeded hostile texts`));
