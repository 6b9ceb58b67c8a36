// The panel's backend: what the panel shows (state, notices, drop preview) and its actions, each handed to the core's flows.
import * as vscode from 'vscode';
import type { ReviewDecision } from '../../core/agent/agentEvents';
import { approveReview, cancelReview, compactByName, regenerateReview, type Compacted } from '../../core/agent/reviewFlows';
import type { Approval } from '../../core/compaction/applyProposal';
import type { CompactionProposal, SummarizeFn } from '../../core/compaction/compaction';
import { proposeHandoff } from '../../core/compaction/handoff';
import type { PendingReview } from '../../core/agent/sessionEngine';
import type { CountingDeps } from '../../core/budget/meter';
import { pruneNow } from '../../core/agent/pruneRunner';
import type { CompactionEntry } from '../../core/session/entries';
import { formatTokens } from '../../shared/budgetFormat';
import { toProposalView } from '../../core/views/proposalView';
import { pathViews } from '../../core/views/pathViews';
import { emptyPanelState, type BusyWhat, type CompactionProposalView, type Notice, type PanelState, type UsageView } from '../../shared/panelViewModels';
import { VENDOR } from '../endpoint/endpointModelProvider';
import type { AgentSession } from '../sessions/agentSession';
import type { AgentSessions } from '../sessions/agentSessions';
import type { PanelBackend } from './panelBackend';
import { restorePreCompaction } from '../sessions/checkpointRestore';
import { handedOff, handoffSession, startHandoffSession } from '../sessions/handoffSession';
import { PanelDrop } from './contextDrop';
import { confirmStopRequest } from '../sessions/stopRequestConfirmation';

/** Told to a request that waited for a proposal a newer one replaced. */
const replaced = (): string => vscode.l10n.t('A newer compaction proposal replaced the one waiting for review.');

const compactedText = (entry: CompactionEntry): string =>
  vscode.l10n.t('Compacted: {0} → {1} tokens. Restore Pre-Compaction Branch undoes it.', formatTokens(entry.tokensBefore), formatTokens(entry.tokensAfter));

/** A summarizer bound to a model, for a session. */
export type SummarizerSource = (session: AgentSession) => Promise<{ summarize: SummarizeFn; modelId: string }>;


export class CompactionReview implements PanelBackend, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscription: vscode.Disposable;
  private busy: { what: BusyWhat; since: string } | undefined;
  /** The panel's banner, with the session it is about: another session's panel never shows it. */
  private notice: { sessionId: string | undefined; notice: Notice } | undefined;
  /** A drop measured in the panel, waiting for Drop or Cancel. */
  private readonly drops = new PanelDrop();
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
    const budget = session.budgetView(measured);
    const elsewhere = [...this.waiting].find((other) => other !== session && other.engine.review?.answer);
    const notice = own ?? (elsewhere ? { level: 'info' as const, text: vscode.l10n.t("A compaction of the session \"{0}\" waits for your review: continue that session's chat (or pick it in Manage Sessions) to see it.", elsewhere.title) } : undefined);
    const path = measured?.path ?? session.log.path();
    const dropPreview = this.drops.viewFor(session);
    const views = pathViews(path, measured?.counts);
    return {
      session: { id: session.id, title: session.title, ...(session.log.readOnly ? { readOnly: true } : {}) },
      ...(budget ? { budget } : {}),
      ...(review ? { proposal: this.view(session, review) } : {}),
      ...(this.busy ? { busy: this.busy } : {}),
      history: views.history,
      turns: views.turns,
      ...(views.turnsOmitted > 0 ? { turnsOmitted: views.turnsOmitted } : {}),
      canUndoDrop: views.canUndoDrop,
      ...(dropPreview ? { dropPreview } : {}),
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
    const error = await this.drops.preview(await this.requireSession(), target);
    if (error) this.say('warning', error);
    else this.tell(undefined);
  }

  async confirmDrop(previewId: string): Promise<void> {
    const done = this.drops.confirm(previewId);
    this.changed.fire();
    this.say('info', await done);
  }

  cancelDrop(previewId: string): Promise<void> {
    this.drops.cancel(previewId);
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

  async compactNow(instructions: string): Promise<CompactionProposalView | undefined> {
    const session = await this.requireSession();
    const done = await this.compact(session, instructions);
    return done && 'review' in done ? this.view(session, done.review) : undefined;
  }

  /**
   * A compaction asked for by name (/compact, Compact Now in the panel and the palette). Inside its request (`signal`
   * given) the session is held; otherwise it is taken, stopping a running request after asking, and one that only
   * waits for a review is answered by this newer proposal without asking. Review mode "never" applies a summary that
   * passed validation at once; else it waits for review.
   */
  async compact(session: AgentSession, instructions: string, signal?: AbortSignal): Promise<Compacted | undefined> {
    const given = instructions.trim() || undefined;
    const work = async (): Promise<Compacted | undefined> => {
      const { summarize, modelId, deps } = await this.summarizing(session);
      const stop = signal ?? new AbortController().signal;
      const done = await compactByName(session, { ...deps, summarize, signal: stop, ...(given ? { instructions: given } : {}), modelId, replacedBecause: replaced(), whileSummarizing: (w) => this.whileBusy('summarizing', w), whileApplying: (w) => this.whileBusy('applying', w) });
      if (stop.aborted) return undefined;
      this.tell(!done ? vscode.l10n.t('Nothing to compact yet: the conversation is shorter than what is kept verbatim.') : 'applied' in done ? compactedText(done.applied.entry) : undefined);
      return done ?? undefined;
    };
    return signal ? work() : session.engine.exclusive('compacting', work, confirmStopRequest, { replacesReview: vscode.l10n.t('The automatic compaction waiting for review was replaced by your Compact Now.') });
  }

  /** Apply: exactly the proposal shown under `proposalId` (the core's approveReview; a waiting request applies it itself). */
  async apply(proposalId: string, summary: string, edited: boolean): Promise<void> {
    const session = this.sessionWithReview(proposalId) ?? (await this.requireSession());
    const handoff = session.engine.reviewFor(proposalId).proposal.handoff ? handoffSession(this.sessions, session) : undefined;
    const done = await approveReview(session, proposalId, { summary, edited }, { deps: await this.deps(session), ...(handoff ? { handoff: handoff.target } : {}), confirmStop: confirmStopRequest, whileApplying: (work) => this.whileBusy('applying', work) });
    if (!done || done === 'answered') return;
    if (handoff) await handedOff(this.sessions, session, handoff.created(), true, (text) => this.tell(text));
    else this.tell(compactedText(done.entry));
  }

  /** Summarizes the whole context for a new session (nothing is written); undefined with a notice when the session has no message yet. */
  async proposeHandoff(session: AgentSession, instructions: string | undefined, signal?: AbortSignal): Promise<{ proposal: CompactionProposal; modelId: string } | undefined> {
    const { summarize, modelId, deps } = await this.summarizing(session);
    const proposal = await this.whileBusy('summarizing', () => proposeHandoff(session.log, { ...deps, summarize, signal: signal ?? new AbortController().signal, ...(instructions ? { instructions } : {}) }));
    if (signal?.aborted) return undefined;
    if (!proposal) this.say('info', 'Nothing to hand off yet: this session has no messages.');
    return proposal ? { proposal, modelId } : undefined;
  }

  /** New Session from Summary (panel and palette): outside any request; the summary waits for review like a compaction's (review mode "never" starts the session at once). */
  async handOff(instructions: string): Promise<void> {
    const session = await this.requireSession();
    const made = await session.engine.exclusive('summarizing for a hand-off', () => this.proposeHandoff(session, instructions.trim() || undefined), confirmStopRequest, {
      replacesReview: 'The compaction waiting for review was replaced by your hand-off.',
    });
    if (!made) return;
    if ((await this.deps(session)).settings.compaction.review === 'never' && !made.proposal.needsReview) {
      await this.startSession(session, made.proposal, { summary: made.proposal.summary, edited: false }, made.modelId, false);
      return;
    }
    session.engine.offerReview(made.proposal, false, made.modelId, 'A newer proposal replaced the one waiting for review.');
    this.showPanel();
    this.tell(undefined);
  }

  /** For /handoff (in its request) and review mode "never": see startHandoffSession. */
  async startSession(session: AgentSession, proposal: CompactionProposal, approval: Approval, model: string, inRequest: boolean): Promise<AgentSession | undefined> {
    return startHandoffSession(this.sessions, session, proposal, approval, { deps: await this.deps(session), model, inRequest, whileApplying: (work) => this.whileBusy('applying', work), say: (text) => this.say('info', text) });
  }

  /** Regenerate: the core's regenerateReview replaces the proposal the engine holds (the same cut, the instructions given now). */
  async regenerate(proposalId: string, instructions: string): Promise<CompactionProposalView | undefined> {
    const session = this.sessionWithReview(proposalId) ?? (await this.requireSession());
    const { summarize, deps } = await this.summarizing(session);
    const given = instructions.trim() || undefined;
    const revised = await regenerateReview(session, proposalId, { deps, summarize, signal: new AbortController().signal, ...(given ? { instructions: given } : {}), whileSummarizing: (work) => this.whileBusy('summarizing', work) });
    if (!revised) this.say('info', 'Nothing to hand off yet: this session has no messages.');
    return revised ? this.view(session, revised) : undefined;
  }

  async cancel(proposalId: string): Promise<void> {
    const session = this.sessionWithReview(proposalId) ?? (await this.requireSession());
    const review = cancelReview(session, proposalId);
    this.say('info', review.proposal.handoff ? vscode.l10n.t('Hand-off cancelled; nothing changed.') : vscode.l10n.t('Compaction cancelled; nothing changed.'));
  }

  /** Restore Pre-Compaction Branch (panel and palette): the core's flow undoes it; returns what happened, in words, and the panel shows it too. */
  async restore(compactionId: string): Promise<string> {
    const session = await this.requireSession();
    const message = await restorePreCompaction(session, compactionId, (work) => this.whileBusy('applying', work));
    this.say('info', message);
    return message;
  }

  async pin(entryId: string, pinned = true): Promise<void> {
    await (await this.requireSession()).log.append({ type: 'pin', targetId: entryId, pinned });
  }

  unpin(entryId: string): Promise<void> {
    return this.pin(entryId, false);
  }

  async countTokens(text: string): Promise<number> {
    return (await (await this.requireSession()).ensureCounter()).countText(text);
  }

  /** For a request that waits for a review (the agent loop, /handoff): shows the proposal (its session becomes the active one) and resolves with the person's decision. */
  reviewForLoop(session: AgentSession, proposal: CompactionProposal, modelId: string, signal: AbortSignal): Promise<ReviewDecision> {
    const { decision } = session.engine.awaitReview(proposal, modelId, signal, replaced());
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
    if (this.notice?.sessionId === session.id) this.tell(undefined);
  }

  say(level: Notice['level'], text: string): void {
    this.notice = { sessionId: this.sessions.active?.id, notice: { level, text } };
    this.changed.fire();
  }

  /** Says `text` in the banner, or takes the banner down (something new to look at replaced what it said). */
  private tell(text: string | undefined): void {
    if (text !== undefined) return this.say('info', text);
    this.notice = undefined;
    this.changed.fire();
  }

  private view(session: AgentSession, review: PendingReview<CompactionProposal>): CompactionProposalView {
    return toProposalView(review.id, review.proposal, session.log.path(), review.auto);
  }

  /** The session whose waiting review is `proposalId` (the active one first, then any with a review waiting). */
  private sessionWithReview(proposalId: string): AgentSession | undefined {
    const active = this.sessions.active;
    if (active?.engine.review?.id === proposalId) return active;
    return [...this.waiting].find((session) => session.engine.review?.id === proposalId);
  }

  private async requireSession(): Promise<AgentSession> {
    const session = await this.sessions.activeOrLatest();
    if (!session) throw new Error(vscode.l10n.t('No @agent session yet: start one by sending a message to @agent in the Chat view.'));
    if (session.log.readOnly) throw new Error(vscode.l10n.t('This session is open in another window; change it there.'));
    return session;
  }

  /** The session's summarizer and its model, and its counting deps: what a flow that summarizes needs. */
  private async summarizing(session: AgentSession): Promise<{ summarize: SummarizeFn; modelId: string; deps: CountingDeps }> {
    return { ...(await this.summarizerFor(session)), deps: await this.deps(session) };
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
