// Before each model call: prune or compact when the meter asks for it, and never send a prompt that cannot fit.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import { COLD_CACHE_COMPACT_PERCENT, compactAtTokens, decideBeforeCall, idleSeconds, type BeforeCallDecision } from '../budget/budget';
import { explainNoRoom } from '../budget/roomReport';
import { thresholdsFor } from '../budget/thresholds';
import { awaitingCompactionConsent } from '../compaction/compactionUndo';
import { hasNewContentSinceCompaction, shrinkProblem } from '../compaction/cutPlan';
import type { ModelError } from '../llm/modelStream';
import type { PruneEntry } from '../session/entries';
import type { AgentEvent, AskRestoredBranch, CompactionReason, ReviewCompaction } from './agentEvents';
import { decideOnRestoredBranch } from './restoredBranchGate';
import type { AgentLog } from './agentLog';
import { applyProposal, type Approval } from '../compaction/applyProposal';
import type { CompactionProposal, SummarizeFn } from '../compaction/compaction';
import { NoRoomError, proposeCompaction } from '../compaction/compaction';

export interface GateState {
  log: AgentLog;
  deps: CountingDeps;
  summarize: SummarizeFn;
  review?: ReviewCompaction;
  /** Asks in place when a call on a restored branch would not fit (see decideOnRestoredBranch). */
  askRestoredBranch?: AskRestoredBranch;
  signal: AbortSignal;
  modelId: string;
  /** The last automatic compaction entry; never compact again while it is still the leaf (no new content). */
  lastCompactionId?: string;
  /** This request so far: automatic compactions, and whether the model did anything new since the last one. */
  request: RequestProgress;
}

export interface RequestProgress {
  compactions: number;
  /** Model steps completed since the last compaction. */
  steps: number;
  /** One of them made a call not made before in this request (or answered). */
  progressed: boolean;
  /** Compactions in a row after which the model only repeated earlier calls. */
  stale: number;
}

export function newRequestProgress(): RequestProgress {
  return { compactions: 0, steps: 0, progressed: false, stale: 0 };
}

/** Stale compactions in a row that stop a request: the model keeps re-reading what the summaries replace. */
const MAX_STALE = 2;

/** Why compacting again would only loop, or null when it may go ahead. */
function loopProblem(progress: RequestProgress): string | null {
  if (progress.compactions === 0) return null;
  if (progress.steps === 0) {
    return 'Stopped: the context had to be compacted twice in this request without the model completing a step in between (its newest step alone nearly fills the window). Ask for a smaller step, prune or pin less, or use a model with a larger window.';
  }
  progress.stale = progress.progressed ? 0 : progress.stale + 1;
  if (progress.stale < MAX_STALE) return null;
  return 'Stopped: after each of the last compactions the model only repeated calls it had already made in this request, so the request would loop. Ask for a smaller step, pin what the model keeps re-reading, or use a model with a larger window.';
}

/**
 * How an automatic compaction ended: applied, or why not (the caller decides whether the call may still go out);
 * 'pruned': on a restored branch the person chose to prune instead, and that made room (or, after a refusal, some).
 */
export type CompactOutcome = 'compacted' | 'pruned' | 'skipped' | 'failed';

function errorEvent(message: string, error?: ModelError): AgentEvent {
  return error ? { type: 'error', error, message } : { type: 'error', message };
}

/**
 * What to apply: the proposal as it is when no review is required, else the one the person approved, which is the
 * one the review holds when they applied it (Regenerate replaces it), never this request's first one.
 */
async function* reviewed(state: GateState, proposal: CompactionProposal): AsyncGenerator<AgentEvent, (Approval & { proposal: CompactionProposal }) | 'cancelled' | 'failed'> {
  const settings = state.deps.settings.compaction;
  if (settings.review !== 'always' && !proposal.needsReview) return { proposal, summary: proposal.summary, edited: false };
  if (!state.review) {
    const why = proposal.needsReview ? `the summary failed validation (${proposal.problems.join('; ')})` : 'compaction.review is "always"';
    yield errorEvent(`Compaction needs a review because ${why}, but no reviewer is available; nothing was compacted.`);
    return 'failed';
  }
  yield { type: 'compactionReview', proposal };
  const decision = await state.review(proposal);
  // A newer proposal answered this one (and stopped the request): say so, whatever the signal says by now.
  if (decision.action === 'cancel' && decision.reason) {
    yield errorEvent(`${decision.reason} This request stopped here; nothing was lost. Send a message to continue.`);
    return 'failed';
  }
  if (decision.action === 'cancel' || state.signal.aborted) return 'cancelled';
  return { proposal: decision.proposal, summary: decision.summary, edited: decision.edited };
}

/**
 * Runs one automatic compaction. `contextWindow` overrides the window for planning (after an overflow the
 * real window is smaller than we believed). Errors become events; the generator never throws for them.
 */
export async function* autoCompact(state: GateState, reason: CompactionReason, contextWindow?: number, triggerPercent?: number): AsyncGenerator<AgentEvent, CompactOutcome> {
  if (state.lastCompactionId !== undefined && state.log.leafId === state.lastCompactionId) return 'skipped';
  if (!hasNewContentSinceCompaction(state.log.path())) return 'skipped';
  // The person undid a compaction: compacting again without asking would undo their undo. While the call still
  // fits (a trigger below 100 %) it goes out as it is; when it would not, the request asks and waits for the answer.
  if (awaitingCompactionConsent(state.log.path())) {
    const measured = measureContext(state.log.path(), state.deps);
    if (reason === 'threshold' && measured.budget.used <= measured.budget.usable) return 'skipped';
    const decided = yield* decideOnRestoredBranch({ log: state.log, deps: state.deps, signal: state.signal, ask: state.askRestoredBranch }, reason === 'overflow');
    if (decided === 'stopped') return 'failed';
    if (decided === 'pruned') return 'pruned';
  }
  // A model that re-reads what the last summary replaced would compact again and again until the step limit.
  const loop = loopProblem(state.request);
  if (loop) {
    yield errorEvent(loop);
    return 'failed';
  }
  yield { type: 'compactionStart', reason };
  const base = { ...state.deps, contextWindow: contextWindow ?? state.deps.contextWindow };
  // The cache-aware trigger plans the cut below its own, earlier threshold (as a trigger percent would).
  const deps = triggerPercent === undefined ? base : { ...base, settings: { ...base.settings, compaction: { ...base.settings.compaction, triggerPercent } } };
  try {
    const proposal = await proposeCompaction(state.log, { ...deps, summarize: state.summarize, signal: state.signal, force: reason === 'overflow' });
    if (!proposal || state.signal.aborted) return 'skipped';
    // A summary that does not make room would be applied again and again: stop with a clear error instead (one that
    // freed little but leaves the call within the usable budget goes ahead: the loop guard bounds the rest).
    // After an overflow the server's refusal outranks our count, and the single retry bounds the loop.
    const noShrink = reason === 'overflow' ? null : shrinkProblem(proposal.tokensBefore, proposal.tokensAfter, thresholdsFor(deps.contextWindow, deps.settings).usable);
    if (noShrink) {
      yield errorEvent(noShrink);
      return 'failed';
    }
    const review = yield* reviewed(state, proposal);
    if (review === 'cancelled') {
      yield errorEvent('The compaction was cancelled, so the request was stopped: the conversation does not fit the window without it. Compact with instructions, prune, or start a new session.');
      return 'failed';
    }
    if (review === 'failed') return 'failed';
    const model = deps.settings.compaction.summaryModel || state.modelId;
    const { entry } = await applyProposal(state.log, review.proposal, review, { auto: true, model, deps });
    state.lastCompactionId = entry.id;
    state.request.compactions++;
    state.request.steps = 0;
    state.request.progressed = false;
    yield { type: 'compaction', entry, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter };
    return 'compacted';
  } catch (error) {
    if (state.signal.aborted) return 'failed';
    const message = error instanceof Error ? error.message : String(error);
    yield errorEvent(error instanceof NoRoomError ? message : `Compaction failed: ${message}`);
    return 'failed';
  }
}

/**
 * The cache-aware trigger: when the last model call on the path is older than the provider's cache lifetime
 * (compaction.cacheLifetimeSeconds; 0 turns it off), the next call is uncached anyway, so compaction starts at
 * COLD_CACHE_COMPACT_PERCENT of the usable budget (never below what a compaction leaves behind).
 */
function coldCompactAt(measured: MeasuredContext, deps: CountingDeps, path: ReadonlyArray<{ type: string; timestamp: string }>): number | undefined {
  const lifetime = deps.settings.compaction.cacheLifetimeSeconds;
  if (!(lifetime > 0)) return undefined;
  const idle = idleSeconds(path);
  if (idle === null || idle <= lifetime) return undefined;
  return compactAtTokens(measured.budget, measured.thresholds, COLD_CACHE_COMPACT_PERCENT);
}

function decide(measured: MeasuredContext, deps: CountingDeps, path: ReadonlyArray<{ type: string; timestamp: string }>): BeforeCallDecision {
  const cold = coldCompactAt(measured, deps, path);
  return decideBeforeCall(measured.budget, {
    autoCompact: deps.settings.compaction.auto,
    pruningEnabled: deps.settings.pruning.enabled && measured.thresholds.autoPrune,
    prunableTokens: measured.prune.tokensFreed,
    pruneAtPercent: measured.thresholds.pruneAtPercent,
    compactAt: compactAtTokens(measured.budget, measured.thresholds, deps.settings.compaction.triggerPercent),
    ...(cold !== undefined ? { coldCompactAt: cold } : {}),
  });
}

/**
 * Proactive check before a call: prune when that suffices, compact when the prompt would overflow.
 * Returns the measurement to send with, or 'stop' (an error event says why) when the prompt still cannot
 * fit: a call that the endpoint must refuse is never sent.
 */
export async function* prepareContext(state: GateState): AsyncGenerator<AgentEvent, MeasuredContext | 'stop'> {
  let measured = measureContext(state.log.path(), state.deps);
  let decision = decide(measured, state.deps, state.log.path());
  if (decision === 'prune') {
    const plan = measured.prune;
    const entry = (await state.log.append({ type: 'prune', toolResultIds: plan.entryIds, tokensFreed: plan.tokensFreed, reason: 'auto' })) as PruneEntry;
    yield { type: 'prune', entry, tokensFreed: plan.tokensFreed };
    measured = measureContext(state.log.path(), state.deps);
    decision = decide(measured, state.deps, state.log.path());
  }
  if (decision === 'compact') {
    const cold = coldCompactAt(measured, state.deps, state.log.path()) !== undefined && measured.budget.used <= Math.min(measured.budget.usable, compactAtTokens(measured.budget, measured.thresholds, state.deps.settings.compaction.triggerPercent));
    const outcome = yield* autoCompact(state, 'threshold', undefined, cold ? COLD_CACHE_COMPACT_PERCENT : undefined);
    if (outcome === 'failed') return 'stop';
    measured = measureContext(state.log.path(), state.deps);
  }
  if (state.deps.settings.compaction.auto && measured.budget.used > measured.budget.usable) {
    yield errorEvent(explainNoRoom(measured));
    return 'stop';
  }
  return measured;
}
