// A summary's Markdown renders as Markdown, never as live HTML or links, and a long paragraph is parsed in bounded pieces that keep its marks.
import { describe, expect, it } from 'vitest';
import { INLINE_PIECE, pieceEnd, summaryHtml } from '../../src/shared/summaryMarkdown';

/** The pieces pieceEnd cuts `text` into. */
function pieces(text: string): string[] {
  const list: string[] = [];
  for (let from = 0; from < text.length; ) {
    const end = pieceEnd(text, from);
    list.push(text.slice(from, end));
    from = end;
  }
  return list;
}

describe('summary Markdown', () => {
  it('a-well-formed-summary-renders-as-markdown', () => {
    const html = summaryHtml('## Goal\nFix the *parser* and **tests**.\n\n- `parse()` returns\n- done\n\n```ts\nlet a = 1;\n\nlet b = 2;\n```\n\n| file | state |\n| --- | --- |\n| a.ts | done |\n');
    for (const part of ['<h2>Goal</h2>', '<em>parser</em>', '<strong>tests</strong>', '<li><code>parse()</code> returns</li>', '<pre><code class="language-ts">let a = 1;\n\nlet b = 2;\n</code></pre>', '<td>a.ts</td>']) {
      expect(html).toContain(part);
    }
  });

  it('raw-html-is-escaped-and-links-are-shown-as-text', () => {
    const html = summaryHtml('<img src=x onerror=alert(1)> [see](https://example.com/x) [run](javascript:alert(1)) ![logo](https://example.com/a.png)\n\n[ref]\n\n[ref]: https://example.com/r\n');
    expect(html).not.toMatch(/<img|<a /);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('see <code>https://example.com/x</code>');
    expect(html).toContain('[run](javascript:alert(1))');
    expect(html).toContain('<code>[image: logo https://example.com/a.png]</code>');
    // A reference defined in a later block still resolves in the paragraph (block and inline passes share it).
    expect(html).toContain('ref <code>https://example.com/r</code>');
  });

  it('a-long-paragraph-is-parsed-in-bounded-pieces-cut-at-spaces', () => {
    const unit = '**bold** and *soft* `code` ';
    const paragraph = unit.repeat(Math.ceil((INLINE_PIECE * 5) / unit.length));
    const cut = pieces(paragraph);
    expect(cut.length).toBeGreaterThan(5);
    expect(cut.join('')).toBe(paragraph);
    for (const piece of cut) {
      expect(piece.length).toBeLessThanOrEqual(INLINE_PIECE);
      expect(piece.endsWith(' ') || piece === cut.at(-1)).toBe(true);
    }
    // Cut only at spaces, so every mark still pairs: the whole paragraph renders as it would in one pass.
    const html = summaryHtml(paragraph);
    const count = Math.ceil((INLINE_PIECE * 5) / unit.length);
    expect(html.match(/<strong>bold<\/strong>/g)).toHaveLength(count);
    expect(html.match(/<em>soft<\/em>/g)).toHaveLength(count);
    expect(html.match(/<code>code<\/code>/g)).toHaveLength(count);
    expect(html).not.toContain('*');
  });

  it('pieces-end-at-a-line-break-first-and-never-split-a-surrogate-pair', () => {
    const lines = `${'word '.repeat(100)}\n`.repeat(100);
    for (const piece of pieces(lines)) expect(piece.endsWith('\n') || piece === pieces(lines).at(-1)).toBe(true);
    const emoji = '😀'.repeat(INLINE_PIECE);
    const cut = pieces(emoji);
    expect(cut.join('')).toBe(emoji);
    for (const piece of cut) {
      expect(piece.length).toBeLessThanOrEqual(INLINE_PIECE);
      expect(piece.length % 2).toBe(0);
    }
  });

  it('adversarial-runs-render-escaped-whatever-the-pieces', () => {
    const unit = '*a **b <script>x</script> _c ';
    const html = summaryHtml(unit.repeat(Math.ceil((INLINE_PIECE * 3) / unit.length)));
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    const opened = (html.match(/<(em|strong)>/g) ?? []).length;
    const closed = (html.match(/<\/(em|strong)>/g) ?? []).length;
    expect(opened).toBe(closed);
  });
});
