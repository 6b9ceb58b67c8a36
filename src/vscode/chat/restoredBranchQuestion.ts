// The in-place question of a request on a restored branch whose next call would not fit: chat buttons, and the same request goes on.
import * as vscode from 'vscode';
import type { RestoredBranchChoice, RestoredBranchQuestion } from '../../core/agent/agentEvents';
import { formatTokens } from '../../shared/budgetFormat';

/** The hidden command behind the question's buttons: (questionId, choice). */
export const ANSWER_RESTORED_BRANCH_COMMAND = 'compactionAgent.answerRestoredBranch';

const CHOICES: ReadonlySet<string> = new Set<RestoredBranchChoice>(['compact', 'prune', 'stop']);

interface Waiting {
  resolve: (choice: RestoredBranchChoice) => void;
  sessionId: string;
}

/** The questions asked and not answered yet, by id; a button of an answered (or stopped) question does nothing. */
export class RestoredBranchQuestions {
  private readonly waiting = new Map<string, Waiting>();
  private asked = 0;

  /** Ids of the questions waiting for an answer, for a session (the host tests answer them like a click does). */
  pending(sessionId?: string): string[] {
    return [...this.waiting].filter(([, waiting]) => sessionId === undefined || waiting.sessionId === sessionId).map(([id]) => id);
  }

  /**
   * Shows the question in the running reply and resolves with the person's choice; the request's Stop (its
   * signal) answers "stop". The words of the buttons are the panel's for the same actions.
   */
  ask(stream: vscode.ChatResponseStream, sessionId: string, question: RestoredBranchQuestion, signal: AbortSignal): Promise<RestoredBranchChoice> {
    if (signal.aborted) return Promise.resolve('stop');
    const id = `restored-${Date.now().toString(36)}-${++this.asked}`;
    stream.markdown(`\n\n${questionText(question)}\n\n`);
    stream.button({ command: ANSWER_RESTORED_BRANCH_COMMAND, title: vscode.l10n.t('Compact now'), arguments: [id, 'compact'] });
    if (question.prunable > 0) stream.button({ command: ANSWER_RESTORED_BRANCH_COMMAND, title: vscode.l10n.t('Prune now'), arguments: [id, 'prune'] });
    stream.button({ command: ANSWER_RESTORED_BRANCH_COMMAND, title: vscode.l10n.t('Stop'), arguments: [id, 'stop'] });
    stream.progress(vscode.l10n.t('Waiting for your answer above…'));
    return new Promise<RestoredBranchChoice>((resolve) => {
      const finish = (choice: RestoredBranchChoice): void => {
        signal.removeEventListener('abort', stop);
        this.waiting.delete(id);
        resolve(choice);
      };
      const stop = (): void => finish('stop');
      signal.addEventListener('abort', stop, { once: true });
      this.waiting.set(id, { resolve: finish, sessionId });
    });
  }

  /** A button's click: answers its question when it still waits; says so when it was answered already. */
  answer(id: unknown, choice: unknown): boolean {
    const waiting = typeof id === 'string' ? this.waiting.get(id) : undefined;
    if (!waiting || typeof choice !== 'string' || !CHOICES.has(choice)) {
      void vscode.window.showInformationMessage(vscode.l10n.t('That question was answered already (or its request ended); nothing changed.'));
      return false;
    }
    waiting.resolve(choice as RestoredBranchChoice);
    return true;
  }
}

function questionText(question: RestoredBranchQuestion): string {
  const figures = vscode.l10n.t('{0} of {1} usable tokens', formatTokens(question.used), formatTokens(question.usable));
  const situation = question.refused
    ? vscode.l10n.t('The server refused the next call as too long for its window ({0} by our count).', figures)
    : question.again
      ? vscode.l10n.t('Pruning did not make enough room: the next call would still send {0}.', figures)
      : vscode.l10n.t('The next call would send {0}, more than fits.', figures);
  const paused = vscode.l10n.t('This branch was restored from before a compaction, so nothing is compacted without asking.');
  const choices =
    question.prunable > 0
      ? vscode.l10n.t('**Compact now** summarizes older turns, **Prune now** hides old tool outputs (~{0} tokens; they stay stored), **Stop** ends this request. The request goes on after Compact now or a prune that makes room.', formatTokens(question.prunable))
      : vscode.l10n.t('Nothing is left to prune. **Compact now** summarizes older turns and this request goes on; **Stop** ends it.');
  return `**${vscode.l10n.t('Context window:')}** ${situation} ${paused} ${choices}`;
}
