// The panel's backend: proposes, reviews and applies compactions (for the panel, /compact, commands and the loop).
import * as vscode from 'vscode';
import { returnToCompactionPoint, undoCompaction } from '../core/compaction/compactionUndo';
import type { RestoreItem } from '../core/checkpoints/fileCheckpoints';
import { planFileRestore } from '../core/checkpoints/fileCheckpoints';
import type { ReviewDecision } from '../core/agent/agentEvents';
import type { CompactionProposal, SummarizeFn } from '../core/agent/compactionRunner';
import { applyCompaction, proposeCompaction } from '../core/agent/compactionRunner';
import type { CountingDeps } from '../core/budget/meter';
import { pruneNow } from '../core/agent/pruneRunner';
import { shrinkProblem } from '../core/compaction/cutPlan';
import type { CompactionEntry } from '../core/session/entries';
import { formatTokens } from '../shared/budgetFormat';
import { toHistoryView } from '../core/views/historyView';
import { toProposalView } from '../core/views/proposalView';
import { toUsageView } from '../core/views/usageView';
import type { BusyWhat, CompactionProposalView, Notice, PanelState, UsageView } from '../shared/panelViewModels';
import { VENDOR } from './endpointModelProvider';
import { emptyPanelState } from '../shared/panelViewModels';
import type { AgentSession } from './agentSession';
import type { AgentSessions } from './agentSessions';
import type { PanelBackend } from './panelBackend';
import { askCompactionRestoreMode, mayRestoreFiles, restoreFiles } from './checkpointRestore';

/** A summarizer bound to a model, for a session. */
export type SummarizerSource = (session: AgentSession) => Promise<{ summarize: SummarizeFn; modelId: string }>;

interface Pending {
  id: string;
  session: AgentSession;
  proposal: CompactionProposal;
  auto: boolean;
  modelId: string;
  /** Set while the agent loop waits for this decision (it applies the summary itself). */
  decide?: (decision: ReviewDecision) => void;
}

export class CompactionReview implements PanelBackend, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscription: vscode.Disposable;
  private pending: Pending | undefined;
  private busy: { what: BusyWhat; since: string } | undefined;
  private notice: Notice | undefined;
  private proposals = 0;

  readonly onDidChangeState = this.changed.event;

  constructor(
    private readonly sessions: AgentSessions,
    private readonly summarizerFor: SummarizerSource,
    private readonly showPanel: () => void,
  ) {
    this.subscription = sessions.onDidChangeActive(() => this.changed.fire());
  }

  getState(): PanelState {
    const session = this.sessions.active;
    if (!session) return { ...emptyPanelState(), ...(this.notice ? { notice: this.notice } : {}) };
    const measured = session.measure();
    if (!measured) void session.ensureCounter().then(() => this.changed.fire());
    const pending = this.pending?.session === session ? this.pending : undefined;
    const budget = session.budgetView(measured);
    const path = measured?.path ?? session.log.path();
    return {
      session: { id: session.id, title: session.title },
      ...(budget ? { budget } : {}),
      ...(pending ? { proposal: this.view(pending) } : {}),
      ...(this.busy ? { busy: this.busy } : {}),
      history: toHistoryView(path, measured?.counts),
      usage: this.usageWithPremium(toUsageView(path)),
      ...(this.notice ? { notice: this.notice } : {}),
    };
  }

  /** With VS Code's own models every call is a request that may count as premium; our endpoint's calls are not. */
  private usageWithPremium(usage: UsageView): UsageView {
    const model = this.sessions.lastModel;
    if (!model || model.vendor === VENDOR) return usage;
    return { ...usage, premiumRequests: { model: model.id, requests: usage.session.calls + usage.session.unreportedCalls } };
  }

  async pruneNow(): Promise<void> {
    const session = await this.requireSession();
    const entry = await this.whileBusy('pruning', async () => pruneNow(session.log, await this.deps(session), { reason: 'manual', anySize: true }));
    this.say('info', entry ? `Pruned ${entry.toolResultIds.length} old tool output(s), freeing ~${formatTokens(entry.tokensFreed)} tokens. They stay stored and readable.` : 'Nothing to prune: no tool output outside the protected recent window.');
  }

  async compactNow(instructions: string): Promise<CompactionProposalView | undefined> {
    const session = await this.requireSession();
    const pending = await this.propose(session, instructions.trim() || undefined, false);
    return pending ? this.view(pending) : undefined;
  }

  /** Proposes a compaction for review (or returns undefined with a notice when there is nothing to compact). */
  async propose(session: AgentSession, instructions: string | undefined, auto: boolean, signal?: AbortSignal): Promise<Pending | undefined> {
    const { summarize, modelId } = await this.summarizerFor(session);
    const deps = await this.deps(session);
    const proposal = await this.whileBusy('summarizing', () =>
      proposeCompaction(session.log, { ...deps, summarize, signal: signal ?? new AbortController().signal, ...(instructions ? { instructions } : {}), force: true }),
    );
    if (signal?.aborted) return undefined;
    if (!proposal) {
      this.say('info', 'Nothing to compact yet: the conversation is shorter than what is kept verbatim.');
      return undefined;
    }
    // Asked for by name, a compaction that saves little is still the person's call; automatic ones need a look.
    const noShrink = auto ? shrinkProblem(proposal.tokensBefore, proposal.tokensAfter) : null;
    if (noShrink) {
      proposal.problems = [...proposal.problems, noShrink];
      proposal.needsReview = true;
    }
    this.pending = { id: `proposal-${++this.proposals}`, session, proposal, auto, modelId };
    this.notice = undefined;
    this.changed.fire();
    return this.pending;
  }

  async apply(proposalId: string, summary: string, edited: boolean): Promise<void> {
    const pending = this.take(proposalId);
    if (pending.decide) {
      pending.decide({ action: 'apply', summary, edited });
      this.changed.fire();
      return;
    }
    await this.applyPending(pending, summary, edited);
  }

  /** Applies without review (review mode "never"), or after the person approved. */
  async applyPending(pending: Pending, summary: string, edited: boolean): Promise<CompactionEntry> {
    const deps = await this.deps(pending.session);
    const entry = await this.whileBusy('applying', () =>
      applyCompaction(pending.session.log, pending.proposal, {
        summary,
        edited,
        auto: pending.auto,
        ...(pending.proposal.instructions !== undefined ? { instructions: pending.proposal.instructions } : {}),
        model: pending.modelId,
        counter: deps.counter,
      }),
    );
    if (this.pending === pending) this.pending = undefined;
    this.say('info', `Compacted: ${formatTokens(entry.tokensBefore)} → ${formatTokens(entry.tokensAfter)} tokens. Restore Pre-Compaction Branch undoes it.`);
    return entry;
  }

  async regenerate(proposalId: string, instructions: string): Promise<CompactionProposalView | undefined> {
    const old = this.take(proposalId);
    const fresh = await this.propose(old.session, instructions.trim() || undefined, old.auto);
    if (fresh && old.decide) fresh.decide = old.decide;
    else old.decide?.({ action: 'cancel' });
    return fresh ? this.view(fresh) : undefined;
  }

  async cancel(proposalId: string): Promise<void> {
    const pending = this.take(proposalId);
    pending.decide?.({ action: 'cancel' });
    this.say('info', 'Compaction cancelled; nothing changed.');
    return Promise.resolve();
  }

  /**
   * Undoes a compaction (see undoCompaction) and returns what happened, in words; the panel shows it too. When
   * the agent changed files since, the person chooses: the conversation only (every later turn comes back), or
   * the conversation and the files as they were at that point (later turns stay on the compacted branch).
   */
  async restore(compactionId: string): Promise<string> {
    const session = await this.requireSession();
    const items = planFileRestore(session.log.path(), compactionId) ?? [];
    const mode = items.length === 0 ? 'conversation' : await askCompactionRestoreMode(items.map((item) => item.path));
    if (!mode) return 'Restore cancelled; nothing changed.';
    if (mode === 'files' && !(await mayRestoreFiles(items))) return 'Restore cancelled; nothing changed.';
    const message = mode === 'files' ? await this.restoreWithFiles(session, compactionId, items) : await this.restoreConversation(session, compactionId);
    this.say('info', message);
    session.noteForChat(message);
    return message;
  }

  private async restoreConversation(session: AgentSession, compactionId: string): Promise<string> {
    const { copied, skippedCompactions } = await this.whileBusy('applying', () => undoCompaction(session.log, compactionId));
    const later = copied > 0 ? ` with the ${copied} entr${copied === 1 ? 'y' : 'ies'} made since` : '';
    const skipped = skippedCompactions > 0 ? ` The ${skippedCompactions} later compaction${skippedCompactions === 1 ? '' : 's'} built on it ${skippedCompactions === 1 ? 'is' : 'are'} undone too.` : '';
    return `Restored the full history from before that compaction${later}.${skipped} Nothing will be compacted again without asking; the compacted branch is kept (Switch Branch returns to it).`;
  }

  private async restoreWithFiles(session: AgentSession, compactionId: string, items: readonly RestoreItem[]): Promise<string> {
    const files = await this.whileBusy('applying', async () => {
      await returnToCompactionPoint(session.log, compactionId);
      return restoreFiles(session, compactionId, items, 'how they were at that compaction');
    });
    return `Restored the session to the point of that compaction, full history and no summary. ${files} The later turns stay on the compacted branch (Switch Branch returns to them); nothing will be compacted again without asking.`;
  }

  async pin(entryId: string): Promise<void> {
    const session = await this.requireSession();
    await session.log.append({ type: 'pin', targetId: entryId, pinned: true });
  }

  async unpin(entryId: string): Promise<void> {
    const session = await this.requireSession();
    await session.log.append({ type: 'pin', targetId: entryId, pinned: false });
  }

  async countTokens(text: string): Promise<number> {
    const session = await this.requireSession();
    return (await session.ensureCounter()).countText(text);
  }

  /** For the agent loop: shows the proposal in the panel and resolves with the person's decision. */
  reviewForLoop(session: AgentSession, proposal: CompactionProposal, modelId: string, signal: AbortSignal): Promise<ReviewDecision> {
    this.pending?.decide?.({ action: 'cancel' });
    return new Promise<ReviewDecision>((resolve) => {
      const pending: Pending = { id: `proposal-${++this.proposals}`, session, proposal, auto: true, modelId, decide: resolve };
      signal.addEventListener('abort', () => {
        if (this.pending === pending) this.pending = undefined;
        resolve({ action: 'cancel' });
        this.changed.fire();
      }, { once: true });
      this.pending = pending;
      this.showPanel();
      this.changed.fire();
    });
  }

  say(level: Notice['level'], text: string): void {
    this.notice = { level, text };
    this.changed.fire();
  }

  private view(pending: Pending): CompactionProposalView {
    return toProposalView(pending.id, pending.proposal, pending.session.log.path(), pending.auto);
  }

  private take(proposalId: string): Pending {
    const pending = this.pending;
    if (!pending || pending.id !== proposalId) throw new Error('That proposal is no longer current; compact again.');
    this.pending = undefined;
    return pending;
  }

  private async requireSession(): Promise<AgentSession> {
    const session = await this.sessions.activeOrLatest();
    if (!session) throw new Error('No @agent session yet: start one by sending a message to @agent in the Chat view.');
    if (session.log.readOnly) throw new Error('This session is open in another window; change it there.');
    return session;
  }

  private async deps(session: AgentSession): Promise<CountingDeps> {
    await session.ensureCounter();
    const deps = session.deps();
    if (!deps) throw new Error('The tokenizer could not be loaded.');
    return deps;
  }

  private async whileBusy<T>(what: BusyWhat, work: () => Promise<T>): Promise<T> {
    this.busy = { what, since: new Date().toISOString() };
    this.changed.fire();
    try {
      return await work();
    } finally {
      this.busy = undefined;
      this.changed.fire();
    }
  }

  dispose(): void {
    this.pending?.decide?.({ action: 'cancel' });
    this.subscription.dispose();
    this.changed.dispose();
  }
}
