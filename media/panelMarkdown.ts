// Renders a summary's Markdown to safe DOM: raw HTML is escaped, links and images become text, DOMPurify has the last word.

import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import type { Tokens } from 'marked';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

// Summaries come from a model that read untrusted files: no raw HTML, no URLs that could be followed or fetched.
const markdown = new Marked({
  async: false,
  gfm: true,
  breaks: false,
  renderer: {
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    link({ tokens, href }: Tokens.Link): string {
      const label = this.parser.parseInline(tokens);
      return `${label} <code>${escapeHtml(href)}</code>`;
    },
    image: ({ text, href }: Tokens.Image) => `<code>[image: ${escapeHtml(text)} ${escapeHtml(href)}]</code>`,
    checkbox: ({ checked }: Tokens.Checkbox) => (checked ? '[x] ' : '[ ] '),
  },
});

const ALLOWED_TAGS = [
  'p', 'br', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
];

/** Markdown → a fragment of harmless elements with no attributes at all. */
export function renderMarkdown(source: string): DocumentFragment {
  const html = markdown.parse(source, { async: false });
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: [],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    KEEP_CONTENT: true,
    RETURN_DOM_FRAGMENT: true,
  });
}
