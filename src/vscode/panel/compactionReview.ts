// The panel's backend: what the panel shows (state, notices, drop preview) and its actions, each handed to the core's flows.
import * as vscode from 'vscode';
import type { ReviewDecision } from '../../core/agent/agentEvents';
import type { CompactionProposal, SummarizeFn } from '../../core/compaction/compaction';
import { proposeCompaction } from '../../core/compaction/compaction';
import { proposeHandoff } from '../../core/compaction/handoff';
import { applyReviewed, handOff, proposeForReview } from '../../core/agent/sessionFlows';
import type { PendingReview } from '../../core/agent/sessionEngine';
import type { CountingDeps } from '../../core/budget/meter';
import { pruneNow } from '../../core/agent/pruneRunner';
import type { CompactionEntry } from '../../core/session/entries';
import { formatTokens } from '../../shared/budgetFormat';
import { toProposalView } from '../../core/views/proposalView';
import { pathViews } from '../../core/views/pathViews';
import type { BusyWhat, CompactionProposalView, Notice, PanelState, UsageView } from '../../shared/panelViewModels';
import { VENDOR } from '../endpoint/endpointModelProvider';
import { emptyPanelState } from '../../shared/panelViewModels';
import type { AgentSession } from '../sessions/agentSession';
import type { AgentSessions } from '../sessions/agentSessions';
import type { PanelBackend } from './panelBackend';
import { restorePreCompaction } from '../sessions/checkpointRestore';
import { applyDropExclusively, dropDone, measureDropTarget } from './contextDrop';
import { confirmStopRequest } from '../sessions/stopRequestConfirmation';
import type { DropPreview } from '../../core/agent/dropRunner';
import { toDropPreviewView } from '../../core/views/dropView';

/** A summarizer bound to a model, for a session. */
export type SummarizerSource = (session: AgentSession) => Promise<{ summarize: SummarizeFn; modelId: string }>;

/** A session's waiting review, with the session it belongs to. */
interface Pending {
  session: AgentSession;
  review: PendingReview<CompactionProposal>;
}

export class CompactionReview implements PanelBackend, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscription: vscode.Disposable;
  private busy: { what: BusyWhat; since: string } | undefined;
  /** The panel's banner, with the session it is about: another session's panel never shows it. */
  private notice: { sessionId: string | undefined; notice: Notice } | undefined;
  /** A drop measured in the panel, waiting for Drop or Cancel. */
  private drop: { id: string; session: AgentSession; preview: DropPreview } | undefined;
  private drops = 0;
  /** Sessions whose review is waiting, so the panel can point to one that is not the active session. */
  private readonly waiting = new Set<AgentSession>();

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
    const own = this.notice && this.notice.sessionId === session?.id ? this.notice.notice : undefined;
    if (!session) return { ...emptyPanelState(), ...(own ? { notice: own } : {}) };
    const measured = session.measure();
    if (!measured) void session.ensureCounter().then(() => this.changed.fire());
    const review = session.engine.review;
    const pending = review ? { session, review } : undefined;
    const budget = session.budgetView(measured);
    const elsewhere = [...this.waiting].find((other) => other !== session && other.engine.review?.answer);
    const notice = own ?? (elsewhere ? { level: 'info' as const, text: vscode.l10n.t("A compaction of the session \"{0}\" waits for your review: continue that session's chat (or pick it in Manage Sessions) to see it.", elsewhere.title) } : undefined);
    const path = measured?.path ?? session.log.path();
    const views = pathViews(path, measured?.counts);
    return {
      session: { id: session.id, title: session.title, ...(session.log.readOnly ? { readOnly: true } : {}) },
      ...(budget ? { budget } : {}),
      ...(pending ? { proposal: this.view(pending) } : {}),
      ...(this.busy ? { busy: this.busy } : {}),
      history: views.history,
      turns: views.turns,
      ...(views.turnsOmitted > 0 ? { turnsOmitted: views.turnsOmitted } : {}),
      canUndoDrop: views.canUndoDrop,
      ...(this.drop && this.drop.session === session && this.drop.preview.leafId === session.log.leafId ? { dropPreview: toDropPreviewView(this.drop.id, this.drop.preview) } : {}),
      usage: this.usageWithPremium(views.usage),
      ...(notice ? { notice } : {}),
    };
  }

  /** With VS Code's own models every call is a request that may count as premium; our endpoint's calls are not. */
  private usageWithPremium(usage: UsageView): UsageView {
    const model = this.sessions.lastModel;
    if (!model || model.vendor === VENDOR) return usage;
    return { ...usage, premiumRequests: { model: model.id, requests: usage.session.calls + usage.session.unreportedCalls } };
  }

  async previewDrop(target: string): Promise<void> {
    const session = await this.requireSession();
    const measured = await measureDropTarget(session, target);
    if ('error' in measured) {
      this.drop = undefined;
      this.say('warning', `${measured.error} Nothing was dropped.`);
      return;
    }
    this.drop = { id: `drop-${++this.drops}`, session, preview: measured };
    this.notice = undefined;
    this.changed.fire();
  }

  async confirmDrop(previewId: string): Promise<void> {
    const drop = this.drop;
    if (!drop || drop.id !== previewId) throw new Error('That drop is no longer current; choose it again.');
    this.drop = undefined;
    this.changed.fire();
    const entry = await applyDropExclusively(drop.session, drop.preview);
    if (!entry) {
      this.say('info', 'Nothing was dropped.');
      return;
    }
    const message = dropDone(entry);
    this.say('info', message);
    drop.session.noteForChat(message);
  }

  cancelDrop(previewId: string): Promise<void> {
    if (this.drop?.id === previewId) this.drop = undefined;
    this.say('info', 'Nothing was dropped.');
    return Promise.resolve();
  }

  async pruneNow(): Promise<void> {
    const session = await this.requireSession();
    const done = await session.engine.exclusive('pruning', async () => ({ entry: await this.whileBusy('pruning', async () => pruneNow(session.log, await this.deps(session), { reason: 'manual', anySize: true })) }), confirmStopRequest);
    if (!done) return;
    const { entry } = done;
    this.say('info', entry ? vscode.l10n.t('Pruned {0} old tool output(s), freeing ~{1} tokens. They stay stored and readable.', entry.toolResultIds.length, formatTokens(entry.tokensFreed)) : vscode.l10n.t('Nothing to prune: no tool output outside the protected recent window.'));
  }

  /**
   * Compact Now (panel and palette): outside any request, so a running one is stopped first; one that only
   * waits for a review is answered by this newer proposal without asking.
   */
  async compactNow(instructions: string): Promise<CompactionProposalView | undefined> {
    const session = await this.requireSession();
    const pending = await session.engine.exclusive('compacting', () => this.propose(session, instructions.trim() || undefined, false), confirmStopRequest, {
      replacesReview: vscode.l10n.t('The automatic compaction waiting for review was replaced by your Compact Now.'),
    });
    return pending ? this.view(pending) : undefined;
  }

  /** Proposes a compaction for review (or returns undefined with a notice when there is nothing to compact). */
  async propose(session: AgentSession, instructions: string | undefined, auto: boolean, signal?: AbortSignal): Promise<Pending | undefined> {
    const { summarize, modelId } = await this.summarizerFor(session);
    const deps = await this.deps(session);
    const stop = signal ?? new AbortController().signal;
    const replacedBecause = vscode.l10n.t('A newer compaction proposal replaced the one waiting for review.');
    const review = await this.whileBusy('summarizing', () => proposeForReview(session, { ...deps, summarize, signal: stop, ...(instructions ? { instructions } : {}), auto, modelId, replacedBecause }));
    if (stop.aborted) return undefined;
    if (!review) {
      this.say('info', vscode.l10n.t('Nothing to compact yet: the conversation is shorter than what is kept verbatim.'));
      return undefined;
    }
    this.notice = undefined;
    this.changed.fire();
    return { session, review };
  }

  async apply(proposalId: string, summary: string, edited: boolean): Promise<void> {
    const session = await this.sessionWithReview(proposalId);
    const review = session.engine.takeReview(proposalId);
    if (review.answer) {
      session.engine.settle(review, { action: 'apply', summary, edited });
      return;
    }
    if (review.proposal.handoff) {
      const started = await this.startSession(session, review.proposal, summary, edited, review.modelId, false);
      if (started) await this.continueInNewChat(started);
      return;
    }
    await session.engine.exclusive('applying', () => this.applyPending({ session, review }, summary, edited), confirmStopRequest);
  }

  /**
   * Summarizes the whole context for a new session (nothing is written); undefined with a notice when the
   * session has no message yet.
   */
  async proposeHandoff(session: AgentSession, instructions: string | undefined, signal?: AbortSignal): Promise<{ proposal: CompactionProposal; modelId: string } | undefined> {
    const { summarize, modelId } = await this.summarizerFor(session);
    const deps = await this.deps(session);
    const proposal = await this.whileBusy('summarizing', () => proposeHandoff(session.log, { ...deps, summarize, signal: signal ?? new AbortController().signal, ...(instructions ? { instructions } : {}) }));
    if (signal?.aborted) return undefined;
    if (!proposal) {
      this.say('info', 'Nothing to hand off yet: this session has no messages.');
      return undefined;
    }
    return { proposal, modelId };
  }

  /**
   * New Session from Summary (panel and palette): outside any request. The summary waits for review in the panel
   * like a compaction's (review mode "never" starts the session at once); Apply starts it.
   */
  async handOff(instructions: string): Promise<void> {
    const session = await this.requireSession();
    const made = await session.engine.exclusive('summarizing for a hand-off', () => this.proposeHandoff(session, instructions.trim() || undefined), confirmStopRequest, {
      replacesReview: 'The compaction waiting for review was replaced by your hand-off.',
    });
    if (!made) return;
    const { proposal, modelId } = made;
    if ((await this.deps(session)).settings.compaction.review === 'never' && !proposal.needsReview) {
      const started = await this.startSession(session, proposal, proposal.summary, false, modelId, false);
      if (started) await this.continueInNewChat(started);
      return;
    }
    session.engine.offerReview(proposal, false, modelId, 'A newer proposal replaced the one waiting for review.');
    this.notice = undefined;
    this.showPanel();
    this.changed.fire();
  }

  /** For /handoff, inside the request that holds the session: starts the new session from the reviewed summary. */
  async startHandoffSession(session: AgentSession, proposal: CompactionProposal, summary: string, edited: boolean, modelId: string): Promise<AgentSession> {
    const started = await this.startSession(session, proposal, summary, edited, modelId, true);
    if (!started) throw new Error('The new session could not be created.');
    return started;
  }

  /**
   * Starts the new session from a reviewed hand-off summary (the core's flow: the source held, planned again on what
   * it is now; the source is not written to) and makes it the active one. `inRequest`: the /handoff request holds the
   * session already; otherwise it is taken. Undefined when the person kept a running request.
   */
  private async startSession(session: AgentSession, proposal: CompactionProposal, summary: string, edited: boolean, modelId: string, inRequest: boolean): Promise<AgentSession | undefined> {
    const deps = await this.deps(session);
    let created: AgentSession | undefined;
    const source = { sessionId: session.id, leafId: session.log.leafId, title: session.title };
    const started = await this.whileBusy('applying', () =>
      handOff(session, proposal, {
        summary,
        edited,
        model: modelId,
        source,
        deps,
        create: async (from) => {
          // Named by its first request like any session; until then its title says whose work it continues.
          created = await this.sessions.create(vscode.l10n.t('Continues “{0}”', session.title), { handoffFrom: from }, { untitled: true, from: session });
          return created.log;
        },
        confirmStop: confirmStopRequest,
        inRequest,
      }),
    );
    if (!started) return undefined;
    if (!created) throw new Error('The new session could not be created.');
    this.sessions.activate(created);
    this.say('info', vscode.l10n.t('Started a new session from the reviewed summary; your next @agent request continues it and names it. "{0}" stays whole in Sessions.', session.title));
    return created;
  }

  /** After a hand-off outside a chat: the next @agent request in a new chat continues the new session. */
  private async continueInNewChat(session: AgentSession): Promise<void> {
    this.sessions.offerHandoff(session);
    try {
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@agent ', isPartialQuery: true });
    } catch {
      // Without a Chat view the new session is still the active one: any new @agent chat continues it.
    }
  }

  /** Applies without review (review mode "never"), or after the person approved. */
  async applyPending(pending: Pending, summary: string, edited: boolean): Promise<CompactionEntry> {
    const { session, review } = pending;
    const deps = await this.deps(session);
    const entry = await this.whileBusy('applying', () => applyReviewed(session, review, summary, edited, deps));
    this.say('info', vscode.l10n.t('Compacted: {0} → {1} tokens. Restore Pre-Compaction Branch undoes it.', formatTokens(entry.tokensBefore), formatTokens(entry.tokensAfter)));
    return entry;
  }

  async regenerate(proposalId: string, instructions: string): Promise<CompactionProposalView | undefined> {
    const session = await this.sessionWithReview(proposalId);
    const old = session.engine.review;
    if (!old || old.id !== proposalId) throw new Error(vscode.l10n.t('That proposal is no longer current; compact again.'));
    const { summarize } = await this.summarizerFor(session);
    const deps = await this.deps(session);
    const given = instructions.trim() || undefined;
    const options = { ...deps, summarize, signal: new AbortController().signal, ...(given ? { instructions: given } : {}), force: true };
    const proposal = await this.whileBusy('summarizing', () => (old.proposal.handoff ? proposeHandoff(session.log, options) : proposeCompaction(session.log, options)));
    if (!proposal) {
      session.engine.dropReview(vscode.l10n.t('There is nothing to compact any more.'));
      this.say('info', vscode.l10n.t('Nothing to compact yet: the conversation is shorter than what is kept verbatim.'));
      return undefined;
    }
    const revised = session.engine.revise(proposalId, proposal);
    return this.view({ session, review: revised });
  }

  async cancel(proposalId: string): Promise<void> {
    const session = await this.sessionWithReview(proposalId);
    const review = session.engine.takeReview(proposalId);
    session.engine.settle(review, { action: 'cancel' });
    this.say('info', review.proposal.handoff ? vscode.l10n.t('Hand-off cancelled; nothing changed.') : vscode.l10n.t('Compaction cancelled; nothing changed.'));
  }

  /**
   * Restore Pre-Compaction Branch (panel and palette): the core's flow undoes the compaction, with the files when the
   * person chooses them; returns what happened, in words, and the panel shows it too.
   */
  async restore(compactionId: string): Promise<string> {
    const session = await this.requireSession();
    const message = await restorePreCompaction(session, compactionId, (work) => this.whileBusy('applying', work));
    this.say('info', message);
    return message;
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

  /** For the agent loop: shows the proposal in the panel (its session becomes the active one) and resolves with the person's decision. */
  reviewForLoop(session: AgentSession, proposal: CompactionProposal, modelId: string, signal: AbortSignal): Promise<ReviewDecision> {
    const { decision } = session.engine.awaitReview(proposal, modelId, signal, vscode.l10n.t('A newer compaction proposal replaced the one waiting for review.'));
    this.waiting.add(session);
    void decision.finally(() => {
      this.waiting.delete(session);
      this.changed.fire();
    });
    this.sessions.activate(session);
    this.showPanel();
    this.changed.fire();
    return decision;
  }

  /** A new request in the session: its banner was about what came before (the chat's reply repeats what matters). */
  dismissNotice(session: AgentSession): void {
    if (this.notice?.sessionId !== session.id) return;
    this.notice = undefined;
    this.changed.fire();
  }

  say(level: Notice['level'], text: string): void {
    this.notice = { sessionId: this.sessions.active?.id, notice: { level, text } };
    this.changed.fire();
  }

  private view(pending: Pending): CompactionProposalView {
    return toProposalView(pending.review.id, pending.review.proposal, pending.session.log.path(), pending.review.auto);
  }

  /** The session whose waiting review is `proposalId` (the active one first, then any with a review waiting). */
  private async sessionWithReview(proposalId: string): Promise<AgentSession> {
    const active = this.sessions.active;
    if (active?.engine.review?.id === proposalId) return active;
    for (const session of this.waiting) if (session.engine.review?.id === proposalId) return session;
    return this.requireSession();
  }

  private async requireSession(): Promise<AgentSession> {
    const session = await this.sessions.activeOrLatest();
    if (!session) throw new Error(vscode.l10n.t('No @agent session yet: start one by sending a message to @agent in the Chat view.'));
    if (session.log.readOnly) throw new Error(vscode.l10n.t('This session is open in another window; change it there.'));
    return session;
  }

  private async deps(session: AgentSession): Promise<CountingDeps> {
    await session.ensureCounter();
    const deps = session.deps();
    if (!deps) throw new Error(vscode.l10n.t('The tokenizer could not be loaded.'));
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
    for (const session of this.waiting) session.engine.dropReview();
    this.subscription.dispose();
    this.changed.dispose();
  }
}
