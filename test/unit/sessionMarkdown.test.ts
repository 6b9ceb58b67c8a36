// Exporting a session as Markdown keeps every request, answer, call and result, and no content can break out of its fence.
import { describe, expect, it } from 'vitest';
import { sessionMarkdown } from '../../src/core/session/sessionMarkdown';
import { chainEntries } from '../support/sessionPathBuilder';

describe('session export as Markdown', () => {
  it('export-keeps-requests-calls-results-and-compactions', () => {
    const markdown = sessionMarkdown('Fix the parser', chainEntries([
      { type: 'user', text: 'Why does the parser fail?' },
      { type: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"parser.ts"}' }] },
      { type: 'toolResult', toolCallId: 'c1', toolName: 'read_file', isError: false, content: 'export function parse() {}' },
      { type: 'compaction', summary: '## Goal\nFix the parser', firstKeptEntryId: null, tokensBefore: 900, tokensAfter: 100, files: { read: [], modified: [] }, edited: false, auto: true },
      { type: 'user', text: 'continue', synthetic: true },
      { type: 'assistant', text: 'It never returns.', toolCalls: [] },
    ]));
    expect(markdown.startsWith('# Fix the parser\n')).toBe(true);
    for (const text of ['Why does the parser fail?', '**→ read_file**', '{"path":"parser.ts"}', 'export function parse() {}', 'Fix the parser', 'It never returns.', '900 → 100']) {
      expect(markdown).toContain(text);
    }
    expect(markdown).not.toContain('continue');
    expect(markdown.match(/^## Turn/gm)).toHaveLength(1);
  });

  it('a-result-full-of-backticks-stays-inside-its-fence', () => {
    const markdown = sessionMarkdown('t', chainEntries([
      { type: 'user', text: 'x' },
      { type: 'assistant', text: '', toolCalls: [{ id: 'c', name: 'run_command', arguments: '{}' }] },
      { type: 'toolResult', toolCallId: 'c', toolName: 'run_command', isError: false, content: '```\n# not a heading\n````' },
    ]));
    expect(markdown).toContain('`````text\n```\n# not a heading\n````\n`````');
  });

  it('a-file-restore-is-listed-where-it-happened', () => {
    const markdown = sessionMarkdown('t', chainEntries([
      { type: 'user', text: 'x' },
      { type: 'fileRestore', targetId: 'u', changes: [{ path: 'src/a`b.ts', absolute: '/w/src/a`b.ts', before: null, after: null }] },
    ]));
    expect(markdown).toContain("> **Files restored** to an earlier checkpoint: `src/a'b.ts`.");
  });

  /** Headings outside code blocks, and whether a block is left open at the end (a CommonMark fence scan). */
  function structure(markdown: string): { headings: string[]; openAtEnd: boolean; rawHtml: boolean } {
    let open: string | undefined;
    const headings: string[] = [];
    let rawHtml = false;
    for (const line of markdown.split(/\r\n?|\n/)) {
      const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(line);
      if (open !== undefined) {
        if (fence && fence[1]?.[0] === open[0] && (fence[1]?.length ?? 0) >= open.length && !fence[2]?.trim()) open = undefined;
        continue;
      }
      if (fence) open = fence[1];
      else if (/^#{1,6} /.test(line)) headings.push(line);
      else if (/(^|[^\\`])<[!a-zA-Z/?]/.test(line.replace(/`[^`]*`/g, ''))) rawHtml = true;
    }
    return { headings, openAtEnd: open !== undefined, rawHtml };
  }

  it('an-answer-cut-off-inside-a-code-block-does-not-swallow-the-rest', () => {
    for (const cut of ['```ts\nconst a = 1;', '~~~~\nhalf', '````md\n```\ninner', '<!-- never closed', '<script>alert(1)', '<pre>\nx']) {
      const markdown = sessionMarkdown('t', chainEntries([
        { type: 'user', text: 'first' },
        { type: 'assistant', text: cut, toolCalls: [] },
        { type: 'user', text: 'second' },
        { type: 'assistant', text: 'fine', toolCalls: [] },
      ]));
      const shape = structure(markdown);
      expect(shape.headings.filter((line) => line.startsWith('## Turn')), cut).toHaveLength(2);
      expect(shape.openAtEnd, cut).toBe(false);
      expect(shape.rawHtml, cut).toBe(false);
      expect(markdown).toContain('fine');
    }
  });

  it('tool-names-model-ids-timestamps-and-file-names-cannot-inject-headings-or-html', () => {
    const hostile = 'x</b>\n\n# Owned\n<img src=x onerror=alert(1)>`` ` [link](javascript:alert(1))';
    const entries = chainEntries([
      { type: 'user', text: 'go' },
      { type: 'assistant', text: '', model: hostile, toolCalls: [{ id: 'c', name: hostile, arguments: '{}' }] },
      { type: 'toolResult', toolCallId: 'c', toolName: hostile, isError: false, content: 'ok' },
      { type: 'fileRestore', targetId: 'u', changes: [{ path: hostile, absolute: '/w/x', before: null, after: null }] },
    ]).map((entry) => (entry.type === 'user' ? { ...entry, timestamp: hostile } : entry));
    const markdown = sessionMarkdown(hostile, entries);
    const shape = structure(markdown);
    expect(shape.headings.filter((line) => /Owned/.test(line) && !line.startsWith('# x') && !line.startsWith('## Turn'))).toEqual([]);
    expect(shape.headings).toHaveLength(2);
    expect(shape.rawHtml).toBe(false);
    expect(shape.openAtEnd).toBe(false);
    expect(markdown.replace(/`[^`\n]*`/g, '')).not.toMatch(/[^\\]\[link\]\(/);
  });
});
