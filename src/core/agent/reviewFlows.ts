// A compaction or hand-off under review, as flows of the core: one proposal with one owner (the session's engine), proposed, regenerated, approved and applied through the one apply path.
import type { CountingDeps } from '../budget/meter';
import { applyProposal, type Applied, type ApplyContext, type Approval } from '../compaction/applyProposal';
import type { CompactionProposal, ProposeOptions, SummarizeFn } from '../compaction/compaction';
import { proposeAgain, proposeCompaction } from '../compaction/compaction';
import { shrinkProblem } from '../compaction/cutPlan';
import { proposeHandoff } from '../compaction/handoff';
import type { ConfirmStop, PendingReview } from './sessionEngine';
import type { FlowSession } from './sessionFlows';

type Review = PendingReview<CompactionProposal>;

/** Wraps the part of a flow that summarizes or applies (the panel shows it as busy). */
export type WhileBusy = <T>(work: () => Promise<T>) => Promise<T>;

const direct: WhileBusy = (work) => work();

export interface ReviewRequest extends Omit<ProposeOptions, 'force'> {
  /** Proposed by the agent rather than asked for by the person. */
  auto: boolean;
  modelId: string;
  /** Told to a request that waited for an earlier proposal this one replaces. */
  replacedBecause: string;
}

/**
 * Proposes a compaction and registers it for review with the engine (one per session). Null when there is nothing
 * to compact or the signal stopped it. Run it with the session held (SessionEngine.exclusive, or in its request).
 */
export async function proposeForReview(session: FlowSession, request: ReviewRequest): Promise<Review | null> {
  const proposal = await proposeCompaction(session.log, { ...request, force: true });
  if (request.signal.aborted || !proposal) return null;
  // Asked for by name, a compaction that saves little is still the person's call; automatic ones need a look.
  const noShrink = request.auto ? shrinkProblem(proposal.tokensBefore, proposal.tokensAfter) : null;
  if (noShrink) {
    proposal.problems = [...proposal.problems, noShrink];
    proposal.needsReview = true;
  }
  return session.engine.offerReview(proposal, request.auto, request.modelId, request.replacedBecause);
}

/** What a compaction asked for by name came to: waiting for review, or applied at once (review mode "never"). */
export type Compacted = { review: Review } | { applied: Applied };

/**
 * A compaction asked for by name (/compact, Compact Now): proposed for review, or, in review mode "never" with a summary
 * that passed validation, applied at once through the one apply path. Null when there is nothing to compact. Run it
 * with the session held.
 */
export async function compactByName(session: FlowSession, request: Omit<ReviewRequest, 'auto'> & { whileApplying?: WhileBusy; whileSummarizing?: WhileBusy }): Promise<Compacted | null> {
  const review = await (request.whileSummarizing ?? direct)(() => proposeForReview(session, { ...request, auto: false }));
  if (!review) return null;
  if (request.settings.compaction.review !== 'never' || review.proposal.needsReview) return { review };
  const approval = { summary: review.proposal.summary, edited: false };
  return { applied: await (request.whileApplying ?? direct)(() => applyReview(session, review, approval, { deps: request })) };
}

/** What applying needs besides the proposal: how to measure, and where a hand-off's new session goes. */
export interface ApplyOptions {
  deps: CountingDeps;
  handoff?: ApplyContext['handoff'];
}

/**
 * Applies exactly the proposal `review` holds (applyProposal), then forgets the review: a failed apply keeps it. Run it
 * with the session held; review mode "never" applies this way at once.
 */
export async function applyReview(session: FlowSession, review: Review, approval: Approval, options: ApplyOptions): Promise<Applied> {
  const applied = await applyProposal(session.log, review.proposal, approval, { deps: options.deps, auto: review.auto, model: review.modelId, ...(options.handoff ? { handoff: options.handoff } : {}) });
  if (session.engine.review === review) session.engine.takeReview(review.id);
  return applied;
}

export interface ApproveOptions extends ApplyOptions {
  confirmStop: ConfirmStop;
  whileApplying?: WhileBusy;
}

/**
 * The person's Apply of the review `id`, as shown. A request waiting for it (the loop, /handoff) is answered with the
 * proposal the review holds and applies it through the same path ('answered'). Otherwise it is applied here with the
 * session held; the review is looked up again once it is held, and taken only when applying succeeded, so declining
 * to stop a running request (undefined) or a failed apply leaves the proposal waiting as it was.
 */
export async function approveReview(session: FlowSession, id: string, approval: Approval, options: ApproveOptions): Promise<Applied | 'answered' | undefined> {
  const review = session.engine.reviewFor(id);
  if (review.answer) {
    session.engine.settle(review, { action: 'apply', ...approval });
    return 'answered';
  }
  const wrap = options.whileApplying ?? direct;
  const what = review.proposal.handoff ? 'starting a new session from the summary' : 'applying';
  return session.engine.exclusive(what, () => wrap(() => applyReview(session, session.engine.reviewFor(id), approval, options)), options.confirmStop);
}

export interface RegenerateOptions {
  deps: CountingDeps;
  summarize: SummarizeFn;
  /** The instructions for the new summary (those of the first are not kept). */
  instructions?: string;
  signal: AbortSignal;
  whileSummarizing?: WhileBusy;
}

/**
 * Regenerate: the review `id`'s proposal summarized again with the instructions given now, at the same cut (a hand-off:
 * from the context as it is), replaces it in the engine, its one owner; a request waiting for the review keeps waiting,
 * for the new one, and Apply applies exactly it. Null, the review dropped, when a hand-off has nothing to summarize.
 */
export async function regenerateReview(session: FlowSession, id: string, options: RegenerateOptions): Promise<Review | null> {
  const review = session.engine.reviewFor(id);
  const propose: ProposeOptions = { ...options.deps, summarize: options.summarize, signal: options.signal, ...(options.instructions !== undefined ? { instructions: options.instructions } : {}) };
  const wrap = options.whileSummarizing ?? direct;
  const proposal = await wrap(() => (review.proposal.handoff ? proposeHandoff(session.log, propose) : proposeAgain(session.log, review.proposal, propose)));
  if (!proposal) {
    session.engine.dropReview('There is nothing to hand off any more.');
    return null;
  }
  return session.engine.revise(id, proposal);
}

/** The person's Cancel of the review `id`: a request waiting for it stops; returns what was cancelled. */
export function cancelReview(session: FlowSession, id: string): Review {
  const review = session.engine.takeReview(id);
  session.engine.settle(review, { action: 'cancel' });
  return review;
}

/**
 * Starts the new session from a hand-off proposal no review waits for (review mode "never"), with the source held:
 * outside a request it is taken exclusively (a running request is stopped after asking); inside the request that
 * proposed it (/handoff), that request already holds it. Through the one apply path, which plans again on the source
 * as it is (its pins, whether it moved on). Undefined when the person kept a running request.
 */
export async function handOff(session: FlowSession, proposal: CompactionProposal, approval: Approval, options: ApplyOptions & { model?: string; confirmStop: ConfirmStop; inRequest: boolean; whileApplying?: WhileBusy }): Promise<Applied | undefined> {
  const wrap = options.whileApplying ?? direct;
  const context: ApplyContext = { deps: options.deps, auto: false, ...(options.model !== undefined ? { model: options.model } : {}), ...(options.handoff ? { handoff: options.handoff } : {}) };
  const start = (): Promise<Applied> => wrap(() => applyProposal(session.log, proposal, approval, context));
  if (options.inRequest) return start();
  return session.engine.exclusive('starting a new session from the summary', start, options.confirmStop);
}
