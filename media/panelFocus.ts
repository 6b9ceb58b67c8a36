// Keyboard focus and announcements around the review: after each action, focus goes where the person is going once
// the host's next state shows the result (never to the page body), and a live region says what changed.

import { formatTokens } from '../src/shared/budgetFormat';
import { fill } from '../src/shared/panelStrings';
import type { WebviewMessage } from '../src/shared/panelProtocol';
import type { PanelState } from '../src/shared/panelViewModels';
import { h } from './panelDom';
import { text } from './panelText';

/** What the person just asked the panel to do; the state that shows its result decides where focus goes. */
export type ReviewIntent = 'compact' | 'regenerate' | 'apply' | 'cancel';

const INTENTS: Partial<Record<WebviewMessage['type'], ReviewIntent>> = {
  compactNow: 'compact',
  handOff: 'compact',
  regenerate: 'regenerate',
  applySummary: 'apply',
  cancelProposal: 'cancel',
};

/** The element with this data-key (controls keep their key across re-renders). */
function keyed(key: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
}

/** Focus is nowhere useful: on the body, or on a control that was disabled or taken out under it. */
function focusLost(): boolean {
  const active = document.activeElement;
  if (!active || active === document.body || !active.isConnected) return true;
  return active instanceof HTMLButtonElement && active.disabled;
}

export class FocusKeeper {
  /** A polite live region, visually hidden: "review ready", "new proposal", "applied", "cancelled". */
  readonly announcer = h('div', { class: 'visually-hidden', attrs: { id: 'announcer', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' } });
  private intent: ReviewIntent | undefined;
  /** The review closed and the panel waits for what it led to (Apply's compaction) before moving focus. */
  private outcome: 'apply' | 'closed' | 'closedElsewhere' | undefined;
  private proposalId: string | undefined;
  private sessionId: string | undefined;
  private compactions: Set<string> | undefined;
  /** A target waiting for the panel to get focus (a review that opened while the person was typing in the chat). */
  private waiting: (() => HTMLElement | null) | undefined;

  /** `shown`: the state this page showed before it was hidden (its saved state), so showing it again announces nothing. */
  constructor(shown: PanelState | undefined) {
    this.proposalId = shown?.proposal?.id;
    this.sessionId = shown?.session?.id;
    this.compactions = shown ? new Set(shown.history.compactions.map((item) => item.id)) : undefined;
    window.addEventListener('focus', () => {
      const target = this.waiting?.();
      this.waiting = undefined;
      if (target && focusLost()) target.focus();
    });
  }

  /** Notes the intent of a message the panel is about to send (see INTENTS). */
  noteSent(message: WebviewMessage): void {
    const intent = INTENTS[message.type];
    if (intent) this.intent = intent;
  }

  /** An action failed: its result will not come, so nothing moves focus for it. */
  forget(): void {
    this.intent = undefined;
    this.outcome = undefined;
  }

  /** After each render of a state from the host. */
  afterRender(state: PanelState): void {
    const before = this.proposalId;
    const now = state.proposal?.id;
    const added = this.compactions ? state.history.compactions.filter((item) => !this.compactions?.has(item.id)) : [];
    const sessionChanged = this.sessionId !== undefined && state.session?.id !== this.sessionId;
    this.proposalId = now;
    if (state.proposal && now !== before) {
      const acted = this.intent !== undefined;
      this.intent = undefined;
      this.outcome = undefined;
      const figures = [formatTokens(state.proposal.tokensBefore), formatTokens(state.proposal.estimatedTokensAfter)] as const;
      this.announce(fill(before ? text.announceNewProposal : state.proposal.handoff ? text.announceHandoffReady : text.announceReviewReady, ...figures));
      this.move(() => document.getElementById('summary-input'), acted);
      this.rebase(state);
      return;
    }
    if (!now && before) {
      // Apply's result (the compaction, or a hand-off's new session) may come a state or two after the review closed.
      this.outcome = this.intent === 'apply' ? 'apply' : this.intent ? 'closed' : 'closedElsewhere';
      this.intent = undefined;
    }
    if (this.outcome === 'apply') this.afterApply(state, added.at(-1), sessionChanged);
    else if (this.outcome && !state.busy) {
      // Cancel here: back to Compact now. Closed from elsewhere (the chat's request stopped): only when focus was lost.
      const acted = this.outcome === 'closed';
      this.outcome = undefined;
      this.announce(text.announceReviewClosed);
      this.move(() => keyed('compact'), acted);
    }
    // While the host works (summarizing, applying) the pressed button is disabled: focus waits on the busy line.
    if ((this.intent || this.outcome) && state.busy && document.hasFocus() && focusLost()) keyed('busy')?.focus();
    // Until Apply's result is seen, what it is compared with stays as it was when Apply was pressed: the host may show
    // the new compaction (or session) a state before the review closes.
    this.rebase(state);
  }

  /** What the next state is compared with: this one, unless Apply's result is still awaited. */
  private rebase(state: PanelState): void {
    if (this.intent === 'apply' || this.outcome === 'apply') return;
    this.compactions = new Set(state.history.compactions.map((item) => item.id));
    this.sessionId = state.session?.id;
  }

  private afterApply(state: PanelState, applied: PanelState['history']['compactions'][number] | undefined, sessionChanged: boolean): void {
    if (applied) {
      this.outcome = undefined;
      this.announce(fill(text.announceApplied, formatTokens(applied.tokensBefore), formatTokens(applied.tokensAfter)));
      this.move(() => keyed(`compaction:${applied.id}`), true);
    } else if (sessionChanged) {
      this.outcome = undefined;
      this.announce(text.announceSessionStarted);
      this.move(() => document.getElementById('budget-heading'), true);
    } else if (!state.busy && state.notice?.level === 'error') this.outcome = undefined;
  }

  /** Says `words` in the live region (cleared first, so the same words are said again). */
  announce(words: string): void {
    this.announcer.textContent = '';
    setTimeout(() => {
      this.announcer.textContent = words;
    }, 50);
  }

  /**
   * Moves focus to `target` now when the panel has focus and the person acted here (or focus was lost); when the
   * panel does not have focus, it goes there once the person comes to the panel.
   */
  private move(target: () => HTMLElement | null, acted: boolean): void {
    if (!document.hasFocus()) {
      this.waiting = target;
      return;
    }
    this.waiting = undefined;
    if (acted || focusLost()) target()?.focus();
  }
}
