// Renders a summary's Markdown to safe DOM: markdown-it's HTML (linear in the text, raw HTML escaped, links as text), then DOMPurify has the last word.

import DOMPurify from 'dompurify';
import { summaryHtml } from '../src/shared/summaryMarkdown';

const ALLOWED_TAGS = [
  'p', 'br', 'strong', 'em', 'del', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
];

/** Markdown → a fragment of harmless elements with no attributes at all. */
export function renderMarkdown(source: string): DocumentFragment {
  return DOMPurify.sanitize(summaryHtml(source), {
    ALLOWED_TAGS,
    ALLOWED_ATTR: [],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    KEEP_CONTENT: true,
    RETURN_DOM_FRAGMENT: true,
  });
}
