// What the agent loop reports while it runs: one discriminated union the UI, CLI and tests consume.
import type { Budget } from '../budget/budget';
import type { ModelError } from '../llm/modelStream';
import type { AssistantEntry, CompactionEntry, PruneEntry, ToolCall, ToolResultEntry, Usage, UserEntry } from '../session/entries';
import type { ToolFiles } from '../tools/toolTypes';
import type { CompactionProposal } from '../compaction/compaction';

export type CompactionReason = 'threshold' | 'overflow';

export type DoneReason = 'finished' | 'aborted' | 'error' | 'maxSteps';

export type AgentEvent =
  | { type: 'turnStart'; userEntry?: UserEntry }
  | { type: 'textDelta'; text: string }
  | { type: 'reasoningDelta'; text: string }
  /** An assistant entry was appended (also for aborted or failed partial replies). */
  | { type: 'message'; entry: AssistantEntry }
  | { type: 'toolStart'; call: ToolCall }
  | { type: 'toolEnd'; call: ToolCall; entry: ToolResultEntry; files?: ToolFiles }
  /** After each model step: what the endpoint reported and the budget of the next call. */
  | { type: 'usage'; usage?: Usage; budget: Budget }
  | { type: 'prune'; entry: PruneEntry; tokensFreed: number }
  | { type: 'compactionStart'; reason: CompactionReason }
  | { type: 'compaction'; entry: CompactionEntry; tokensBefore: number; tokensAfter: number }
  /** A person must look at this proposal; the loop waits for the injected review callback. */
  | { type: 'compactionReview'; proposal: CompactionProposal }
  /** The next call on a restored branch would not fit: the loop waits for the person's choice (see AskRestoredBranch). */
  | { type: 'restoredBranchQuestion'; question: RestoredBranchQuestion }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  /** Something the user must know about the model's window (a server that truncated the prompt), said once. */
  | { type: 'notice'; message: string }
  | { type: 'error'; error?: ModelError; message: string; /** The choices to offer: a restored branch is over budget. */ restoredOverBudget?: boolean }
  | { type: 'done'; reason: DoneReason; steps: number };

/** What the person says about a proposal under review: apply it (its summary maybe edited), or cancel. */
export type ReviewAnswer = { action: 'apply'; summary: string; edited: boolean } | { action: 'cancel'; /** Why, when it was not the person's Cancel (a newer proposal replaced it). */ reason?: string };

/**
 * The decision a request waiting for a review gets. To apply, it carries the proposal the review holds when the person
 * applied it (the engine fills it in: a regenerated proposal replaced the first one), so what is applied is what was shown.
 */
export type ReviewDecision<P = CompactionProposal> = (Extract<ReviewAnswer, { action: 'apply' }> & { proposal: P }) | Extract<ReviewAnswer, { action: 'cancel' }>;

export type ReviewCompaction = (proposal: CompactionProposal) => Promise<ReviewDecision>;

/** What a request asks when its next call on a branch restored before a compaction would not fit the window. */
export interface RestoredBranchQuestion {
  /** Tokens the next call would send, and how many fit. */
  used: number;
  usable: number;
  /** Tokens pruning old tool outputs would free now; 0 when there is nothing left to prune. */
  prunable: number;
  /** The server refused the call as too long (else our count says it would not fit). */
  refused: boolean;
  /** Asked again: a prune did not make enough room. */
  again: boolean;
}

/** The person's answer: compact now (and continue), prune old tool outputs (and continue when that makes room), or stop. */
export type RestoredBranchChoice = 'compact' | 'prune' | 'stop';

/**
 * Asks in place, while the request waits (the VS Code chat shows buttons in the running reply). Without it the
 * request stops with a message naming the choices, as before: nothing is compacted on a restored branch without asking.
 */
export type AskRestoredBranch = (question: RestoredBranchQuestion) => Promise<RestoredBranchChoice>;
