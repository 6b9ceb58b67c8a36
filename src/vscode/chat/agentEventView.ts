// How the agent loop's events show in the chat: progress lines, notes, errors with the button that fixes them, and the footer that repeats what happened to the context.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentEvent } from '../../core/agent/agentEvents';
import type { ModelError } from '../../core/llm/modelStream';
import { formatTokens } from '../../shared/budgetFormat';
import { markdownWithText } from './chatMarkdown';

function shortArguments(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 80 ? `${flat.slice(0, 77)}…` : flat;
}

function workspaceUri(relative: string): vscode.Uri | undefined {
  const root = vscode.workspace.workspaceFolders?.[0];
  if (!root) return undefined;
  return path.isAbsolute(relative) ? vscode.Uri.file(relative) : vscode.Uri.joinPath(root.uri, relative);
}

/** What the chat shows for a failed model call, with the button that fixes it where there is one. */
export function renderModelError(stream: vscode.ChatResponseStream, message: string, error?: ModelError): void {
  stream.markdown(markdownWithText(`\n\n**${vscode.l10n.t('@agent stopped:')}** `, message, '\n'));
  if (error?.kind === 'auth') stream.button({ command: 'compactionAgent.setApiKey', title: vscode.l10n.t('Set API Key') });
  if (error?.kind === 'notFound' || error?.kind === 'network') {
    stream.button({ command: 'compactionAgent.setUp', title: vscode.l10n.t('Set Up Endpoint') });
    stream.button({ command: 'compactionAgent.openSettings', title: vscode.l10n.t('Open Settings') });
  }
  if (error?.kind === 'overflow') stream.button({ command: 'compactionAgent.showBudget', title: vscode.l10n.t('Open Context & Compaction panel') });
}

/** One event of the loop as the chat shows it while the request runs. */
export function renderEvent(event: AgentEvent, stream: vscode.ChatResponseStream): void {
  switch (event.type) {
    case 'textDelta':
      stream.markdown(event.text);
      break;
    case 'toolStart':
      stream.progress(`${event.call.name} ${shortArguments(event.call.arguments)}`);
      break;
    case 'toolEnd':
      for (const file of [...(event.files?.read ?? []), ...(event.files?.modified ?? [])]) {
        const uri = workspaceUri(file);
        if (uri) stream.reference(uri);
      }
      break;
    case 'prune':
      stream.markdown(`\n\n*${vscode.l10n.t('Pruned {0} old tool output(s) from the context (~{1} tokens freed; they stay stored and readable).', event.entry.toolResultIds.length, formatTokens(event.tokensFreed))}*\n\n`);
      break;
    case 'compactionStart':
      stream.progress(event.reason === 'overflow' ? vscode.l10n.t('The endpoint reported an overflow: compacting and retrying once…') : vscode.l10n.t('The context is nearly full: compacting older turns…'));
      break;
    case 'compactionReview':
      stream.progress(vscode.l10n.t('Waiting for your review of the summary in the Context & Compaction panel…'));
      break;
    case 'compaction':
      stream.markdown(`\n\n*${vscode.l10n.t('Compacted the conversation: {0} → {1} tokens.', formatTokens(event.tokensBefore), formatTokens(event.tokensAfter))}*\n\n`);
      break;
    case 'notice':
      stream.markdown(markdownWithText(`\n\n**${vscode.l10n.t('Context window:')}** `, event.message, '\n\n'));
      break;
    case 'retry':
      stream.progress(vscode.l10n.t('Retrying in {0} s ({1})…', Math.round(event.delayMs / 1000), event.reason));
      break;
    case 'error':
      renderModelError(stream, event.message, event.error);
      if (event.restoredOverBudget) {
        stream.button({ command: 'compactionAgent.resumeAutoCompaction', title: vscode.l10n.t('Resume Automatic Compaction') });
        stream.button({ command: 'compactionAgent.pruneNow', title: vscode.l10n.t('Prune now') });
        stream.button({ command: 'compactionAgent.compactNow', title: vscode.l10n.t('Compact now') });
        stream.button({ command: 'compactionAgent.showBudget', title: vscode.l10n.t('Open Context & Compaction panel') });
      }
      break;
    case 'done':
      if (event.reason === 'maxSteps') stream.markdown(`\n\n*${vscode.l10n.t('Stopped after {0} steps; ask @agent to continue.', event.steps)}*`);
      break;
    default:
      break;
  }
}

/**
 * What happened to the context during the request, repeated after the answer: the chat folds everything
 * streamed before the final text into "Completed N steps", where a compaction notice would go unseen.
 */
export class ContextFooter {
  private pruned = 0;
  private freed = 0;
  private readonly compactions: Array<{ id: string; before: number; after: number }> = [];

  observe(event: AgentEvent): void {
    if (event.type === 'prune') {
      this.pruned += event.entry.toolResultIds.length;
      this.freed += event.tokensFreed;
    }
    if (event.type === 'compaction') this.compactions.push({ id: event.entry.id, before: event.tokensBefore, after: event.tokensAfter });
  }

  render(stream: vscode.ChatResponseStream): void {
    const parts: string[] = [];
    if (this.pruned > 0) parts.push(vscode.l10n.t('pruned {0} old tool output(s) (~{1} tokens)', this.pruned, formatTokens(this.freed)));
    for (const compaction of this.compactions) parts.push(vscode.l10n.t('compacted {0} → {1} tokens', formatTokens(compaction.before), formatTokens(compaction.after)));
    if (parts.length === 0) return;
    stream.markdown(`\n\n---\n*${vscode.l10n.t('Context: {0}. Nothing was deleted.', parts.join('; '))}*\n`);
    const last = this.compactions.at(-1);
    if (!last) return;
    stream.button({ command: 'compactionAgent.showBudget', title: vscode.l10n.t('View summary') });
    stream.button({ command: 'compactionAgent.restorePreCompactionBranch', title: vscode.l10n.t('Restore pre-compaction branch'), arguments: [last.id] });
  }
}
