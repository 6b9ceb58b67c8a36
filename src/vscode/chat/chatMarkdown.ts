// Chat markdown built with MarkdownString: our own markup appended as markdown, every outside text through appendText.
import * as vscode from 'vscode';

/**
 * appendText, but prose still wraps: appendText turns every space into &nbsp; (so runs of spaces survive), which
 * keeps a long sentence from wrapping at word boundaries in the chat. A single space is plain markdown text, so
 * single &nbsp;s go back to spaces; runs of two or more stay as appendText wrote them.
 */
export function appendPlainText(markdown: vscode.MarkdownString, text: string): vscode.MarkdownString {
  const start = markdown.value.length;
  markdown.appendText(text);
  markdown.value = markdown.value.slice(0, start) + markdown.value.slice(start).replace(/(?<!&nbsp;)&nbsp;(?!&nbsp;)/g, ' ');
  return markdown;
}

/** `before` and `after` are our markdown; `text` (from a model, a tool, a server or a file) is shown as plain text. */
export function markdownWithText(before: string, text: string, after = ''): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString().appendMarkdown(before);
  return appendPlainText(markdown, text).appendMarkdown(after);
}

/** An italic note on its own paragraph (what the agent did, what was left out, what a request costs). */
export function noteMarkdown(text: string): vscode.MarkdownString {
  return markdownWithText('*', text, '*\n\n');
}
