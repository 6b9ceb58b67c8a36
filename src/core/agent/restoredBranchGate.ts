// On a branch restored before a compaction nothing is compacted without asking: a call that would not fit asks in place.
import type { CountingDeps, MeasuredContext } from '../budget/meter';
import { measureContext } from '../budget/meter';
import type { AgentEvent, AskRestoredBranch } from './agentEvents';
import type { AgentLog } from './agentLog';
import { prunableNow, pruneNow } from './pruneRunner';

export interface RestoredBranchState {
  log: AgentLog;
  deps: CountingDeps;
  signal: AbortSignal;
  /** Asks the person; without it the request stops with a message naming the choices. */
  ask?: AskRestoredBranch;
}

/** What the person decided: compact now, pruned (the call may go out), or the request stops (an event said why). */
export type RestoredBranchOutcome = 'compact' | 'pruned' | 'stopped';

/** Rounds of asking after prunes that did not make room, before the request stops (a prune frees less each time). */
const MAX_ROUNDS = 8;

function tokens(value: number): string {
  return value.toLocaleString('en-US');
}

/** The stop without a question (no one to ask): the choices, in one message, with the buttons the UI adds. */
export function restoredOverBudget(measured: MeasuredContext): AgentEvent {
  return {
    type: 'error',
    restoredOverBudget: true,
    message: `This branch was restored from before a compaction and holds ${tokens(measured.budget.used)} of ${tokens(measured.budget.usable)} usable tokens, more than fits, so nothing was sent. Automatic compaction is paused here until you decide: Resume Automatic Compaction, prune old tool outputs, /compact (with instructions if you like), or switch to a model with a larger window.`,
  };
}

function stoppedAsChosen(measured: MeasuredContext): AgentEvent {
  return {
    type: 'error',
    message: `Stopped as you chose: this restored branch holds ${tokens(measured.budget.used)} of ${tokens(measured.budget.usable)} usable tokens, so the next call would not fit and was not sent. Nothing was lost; to go on, compact (/compact, with instructions if you like), prune, or use a model with a larger window.`,
  };
}

/**
 * Asks what to do and does the prune the person chose; 'compact' leaves the compaction to the caller (it ends the
 * pause). A prune that does not make room asks again (without Prune once nothing is left to prune). After the
 * server refused the call, any prune is worth a retry: the server's answer is the truth.
 */
export async function* decideOnRestoredBranch(state: RestoredBranchState, refused: boolean): AsyncGenerator<AgentEvent, RestoredBranchOutcome> {
  for (let round = 0; ; round++) {
    const measured = measureContext(state.log.path(), state.deps);
    if (!state.ask || round >= MAX_ROUNDS) {
      yield restoredOverBudget(measured);
      return 'stopped';
    }
    const question = { used: measured.budget.used, usable: measured.budget.usable, prunable: prunableNow(state.log, state.deps), refused, again: round > 0 };
    yield { type: 'restoredBranchQuestion', question };
    const choice = await state.ask(question);
    if (state.signal.aborted) return 'stopped';
    if (choice === 'compact') return 'compact';
    if (choice === 'stop') {
      yield stoppedAsChosen(measured);
      return 'stopped';
    }
    const entry = await pruneNow(state.log, state.deps, { reason: 'manual', anySize: true });
    if (!entry) continue;
    yield { type: 'prune', entry, tokensFreed: entry.tokensFreed };
    const after = measureContext(state.log.path(), state.deps);
    if (refused || after.budget.used <= after.budget.usable) return 'pruned';
  }
}
