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
});
