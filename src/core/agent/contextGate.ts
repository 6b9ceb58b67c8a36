// Before each model call: prune or compact when the budget asks for it; also the automatic compaction with its review rules.
import { decideBeforeCall } from '../budget/budget';
import type { ModelError } from '../llm/modelStream';
import type { PruneEntry } from '../session/entries';
import type { AgentEvent, CompactionReason, ReviewCompaction } from './agentEvents';
import type { AgentLog } from './agentLog';
import type { SummarizeFn } from './compactionRunner';
import { applyCompaction, proposeCompaction } from './compactionRunner';
import { hasNewContentSinceCompaction, shrinkProblem } from '../compaction/compactionGuards';
import type { CountingDeps, MeasuredContext } from './contextMeasure';
import { measureContext } from './contextMeasure';

export interface GateState {
  log: AgentLog;
  deps: CountingDeps;
  summarize: SummarizeFn;
  review?: ReviewCompaction;
  signal: AbortSignal;
  modelId: string;
  /** The last automatic compaction entry; never compact again while it is still the leaf (no new content). */
  lastCompactionId?: string;
}

function errorEvent(message: string, error?: ModelError): AgentEvent {
  return error ? { type: 'error', error, message } : { type: 'error', message };
}

/**
 * Runs one automatic compaction; returns true when a CompactionEntry was appended. `contextWindow`
 * overrides the window for planning (after an overflow the real window is smaller than we believed).
 */
export async function* autoCompact(state: GateState, reason: CompactionReason, contextWindow?: number): AsyncGenerator<AgentEvent, boolean> {
  if (state.lastCompactionId !== undefined && state.log.leafId === state.lastCompactionId) return false;
  if (!hasNewContentSinceCompaction(state.log.path())) return false;
  yield { type: 'compactionStart', reason };
  let proposal;
  try {
    const deps = { ...state.deps, contextWindow: contextWindow ?? state.deps.contextWindow };
    proposal = await proposeCompaction(state.log, { ...deps, summarize: state.summarize, signal: state.signal, force: reason === 'overflow' });
  } catch (error) {
    if (!state.signal.aborted) yield errorEvent(`Compaction failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
  if (!proposal || state.signal.aborted) return false;
  // A summary that does not make room would be applied again and again: stop with a clear error instead.
  const noShrink = shrinkProblem(proposal.tokensBefore, proposal.tokensAfter);
  if (noShrink) {
    yield errorEvent(noShrink);
    return false;
  }
  const settings = state.deps.settings.compaction;
  let summary = proposal.summary;
  let edited = false;
  if (settings.review === 'always' || proposal.needsReview) {
    if (!state.review) {
      const why = proposal.needsReview ? `the summary failed validation (${proposal.problems.join('; ')})` : 'compaction.review is "always"';
      yield errorEvent(`Compaction needs a review because ${why}, but no reviewer is available; nothing was compacted.`);
      return false;
    }
    yield { type: 'compactionReview', proposal };
    const decision = await state.review(proposal);
    if (decision.action === 'cancel' || state.signal.aborted) return false;
    summary = decision.summary;
    edited = decision.edited;
  }
  const model = settings.summaryModel || state.modelId;
  const entry = await applyCompaction(state.log, proposal, { summary, edited, auto: true, model, counter: state.deps.counter });
  state.lastCompactionId = entry.id;
  yield { type: 'compaction', entry, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter };
  return true;
}

function decide(measured: MeasuredContext, deps: CountingDeps): ReturnType<typeof decideBeforeCall> {
  return decideBeforeCall(measured.budget, {
    autoCompact: deps.settings.compaction.auto,
    pruningEnabled: deps.settings.pruning.enabled,
    prunableTokens: measured.prune.tokensFreed,
  });
}

/** Proactive check before a call: prune when that suffices, compact when the prompt would overflow. */
export async function* prepareContext(state: GateState): AsyncGenerator<AgentEvent, void> {
  let measured = measureContext(state.log.path(), state.deps);
  let decision = decide(measured, state.deps);
  if (decision === 'prune') {
    const plan = measured.prune;
    const entry = (await state.log.append({ type: 'prune', toolResultIds: plan.entryIds, tokensFreed: plan.tokensFreed, reason: 'auto' })) as PruneEntry;
    yield { type: 'prune', entry, tokensFreed: plan.tokensFreed };
    measured = measureContext(state.log.path(), state.deps);
    decision = decide(measured, state.deps);
  }
  if (decision === 'compact') yield* autoCompact(state, 'threshold');
}
