// Shows the reasoning a model streams: "Thinking…" while it streams, then one collapsed line with a button for the whole of it.
import * as vscode from 'vscode';
import type { AgentEvent } from '../../core/agent/agentEvents';
import { markdownWithText } from './chatMarkdown';
import { formatCount } from '../../shared/budgetFormat';

/** The command the "Show reasoning" button runs (registered in extension.ts, hidden from the palette). */
export const SHOW_REASONING_COMMAND = 'compactionAgent.showReasoning';
/** Reasoning shorter than this is noise (a stray space or newline some servers send), not worth a line. */
const MIN_SHOWN_CHARS = 2;
/** The collapsed line shows this much of the reasoning. */
const PREVIEW_CHARS = 140;
/** What a button carries at most (VS Code keeps button arguments with the chat); the session keeps all of it. */
const MAX_BUTTON_CHARS = 200_000;

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

/**
 * VS Code's stable chat API has no collapsible part (Copilot's "thinking" block is a proposed API) and the chat
 * renders no <details>: the reasoning is one quoted line, and the button opens all of it in a read-only editor.
 */
export class ReasoningView {
  private text = '';

  constructor(private readonly stream: vscode.ChatResponseStream) {}

  /** Call for every event before it is rendered: a stretch of reasoning ends at the first event of another kind. */
  observe(event: AgentEvent): void {
    if (event.type === 'reasoningDelta') {
      if (this.text === '') this.stream.progress(vscode.l10n.t('Thinking…'));
      this.text += event.text;
      return;
    }
    if (event.type === 'message' || event.type === 'textDelta' || event.type === 'toolStart' || event.type === 'error' || event.type === 'done') this.flush();
  }

  /** Shows what was collected, once. */
  flush(): void {
    const text = this.text.trim();
    this.text = '';
    if (text.length < MIN_SHOWN_CHARS) return;
    const words = text.split(/\s+/).length;
    const label = words === 1 ? vscode.l10n.t('Reasoning (1 word):') : vscode.l10n.t('Reasoning ({0} words):', formatCount(words, vscode.env.language));
    this.stream.markdown(markdownWithText(`\n\n> *${label}* `, preview(text), '\n\n'));
    this.stream.button({ command: SHOW_REASONING_COMMAND, title: vscode.l10n.t('Show reasoning'), arguments: [text.slice(0, MAX_BUTTON_CHARS)] });
  }
}

/** Opens the reasoning in an untitled, unsaved editor (nothing is written to disk). */
export async function showReasoning(text: unknown): Promise<void> {
  if (typeof text !== 'string') return;
  const document = await vscode.workspace.openTextDocument({ content: text, language: 'markdown' });
  await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}
