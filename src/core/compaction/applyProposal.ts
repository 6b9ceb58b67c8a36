// Compaction, stage 4: the one apply path of a proposal, approved by a person or needing no review; the loop, the panel, /compact and /handoff all call it.
import type { CountingDeps } from '../budget/meter';
import type { CompactionEntry } from '../session/entries';
import { applyCompaction, type CompactionLog, type CompactionProposal } from './compaction';
import { startHandoff, type HandoffOptions } from './handoff';

/** What the person approved of a proposal: its summary, maybe edited. */
export interface Approval {
  summary: string;
  edited: boolean;
}

export interface ApplyContext {
  /** How the summary as applied is measured (the entry records the context after it). */
  deps: CountingDeps;
  /** Proposed by the agent loop rather than asked for by the person. */
  auto: boolean;
  /** The model that wrote the summary. */
  model?: string;
  /** Where a hand-off's new session is created and what it names as its source; a compaction needs none. */
  handoff?: Pick<HandoffOptions, 'source' | 'create'>;
}

export interface Applied {
  entry: CompactionEntry;
  /** Where the entry was written: the session's own log, or the new session a hand-off started. */
  log: CompactionLog;
}

/**
 * Applies exactly `proposal`, with the approved summary: a compaction appends its entry at the proposal's own cut, a
 * hand-off starts the new session. Both refuse when the session moved on since the proposal (pins and labels aside)
 * or the summary is empty, and both name in the summary's appendix the pins of the moment they are applied.
 */
export async function applyProposal(log: CompactionLog, proposal: CompactionProposal, approval: Approval, context: ApplyContext): Promise<Applied> {
  const model = context.model !== undefined ? { model: context.model } : {};
  if (proposal.handoff) {
    if (!context.handoff) throw new Error('A hand-off starts a new session, and none can be created here; nothing was applied.');
    return startHandoff(log, proposal, { ...approval, ...model, ...context.handoff, deps: context.deps });
  }
  const instructions = proposal.instructions !== undefined ? { instructions: proposal.instructions } : {};
  const entry = await applyCompaction(log, proposal, { ...approval, auto: context.auto, ...instructions, ...model, deps: context.deps });
  return { entry, log };
}
