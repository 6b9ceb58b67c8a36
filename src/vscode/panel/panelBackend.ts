// What the compaction panel asks of the extension: state to show and one method per action (the lead implements it).

import type * as vscode from 'vscode';
import type { CompactionProposalView, PanelState } from '../../shared/panelViewModels';

/**
 * Every action the panel offers. Methods reject with an Error whose message is fit to show a person;
 * the panel shows it as an error notice. Any change the action causes arrives through onDidChangeState.
 */
export interface PanelBackend {
  /** The full state for the active session; called on every ready handshake and state change. */
  getState(): PanelState;
  readonly onDidChangeState: vscode.Event<void>;
  pruneNow(): Promise<void>;
  /** Starts a compaction; resolves with the proposal to review (also in the state), or undefined if none is needed. */
  compactNow(instructions: string): Promise<CompactionProposalView | undefined>;
  /** New Session from Summary: proposes a hand-off summary for review (or starts the session at once with review "never"). */
  handOff(instructions: string): Promise<void>;
  /** Measures a drop named like /drop's argument ("3", "2-4", "3.2", "undo") and shows it for confirmation. */
  previewDrop(target: string): Promise<void>;
  /** Applies the measured drop through the session engine. */
  confirmDrop(previewId: string): Promise<void>;
  cancelDrop(previewId: string): Promise<void>;
  /** Applies a proposal with the (possibly edited) summary; `edited` is recorded in the compaction entry. */
  apply(proposalId: string, summary: string, edited: boolean): Promise<void>;
  regenerate(proposalId: string, instructions: string): Promise<CompactionProposalView | undefined>;
  cancel(proposalId: string): Promise<void>;
  /** Moves the leaf back to the branch as it was before the compaction. */
  restore(compactionId: string): Promise<string>;
  pin(entryId: string): Promise<void>;
  unpin(entryId: string): Promise<void>;
  /** Exact (or best) token count of a text for the session's model. */
  countTokens(text: string): Promise<number>;
}

/** Where the panel reports rejected messages and failed actions. */
export interface PanelLogger {
  warn(message: string): void;
  error(message: string): void;
}
