// The review section: editable summary with a live token count, preview, what is dropped, diff, Apply/Regenerate/Cancel.

import { formatTokens } from '../src/shared/budgetFormat';
import { diffLines, diffStats } from '../src/shared/lineDiff';
import type { WebviewMessage } from '../src/shared/panelProtocol';
import type { CompactionProposalView, EntryKind, EntryView, NoticeLevel } from '../src/shared/panelViewModels';
import { append, badge, button, clipText, h, icon } from './panelDom';
import { renderMarkdown } from './panelMarkdown';
import { text } from './panelText';
import { fill } from '../src/shared/panelStrings';

/** The person's work in progress, persisted with setState so hiding the panel loses nothing. */
export interface ReviewDraft {
  proposalId: string;
  /** The proposed summary the edits started from: a regenerated summary replaces the draft. */
  baseSummary: string;
  text: string;
  regenerateInstructions: string;
}

export interface ReviewCallbacks {
  post(message: WebviewMessage): void;
  requestTokenCount(text: string): void;
  saveDraft(draft: ReviewDraft): void;
  notice(level: NoticeLevel, text: string): void;
}

const KIND_ICONS: Record<EntryKind, string> = { user: 'account', assistant: 'hubot', toolResult: 'tools', summary: 'note', other: 'circle-small' };
const ENTRY_DISPLAY_CHARS = 20_000;
const RERENDER_DELAY_MS = 250;

function entryList(entries: EntryView[]): HTMLElement {
  if (entries.length === 0) return h('p', { class: 'muted' }, text.nothing);
  return h(
    'ul',
    { class: 'entries' },
    ...entries.map((entry) =>
      h(
        'li',
        {},
        h(
          'details',
          { class: `entry entry-${entry.kind}` },
          h('summary', {}, icon(KIND_ICONS[entry.kind]), h('span', { class: 'entry-title' }, entry.title || text.emptyEntry), h('span', { class: 'num' }, fill(text.tokens, formatTokens(entry.tokens))), entry.pinned ? badge(text.badgePinned, 'ok') : null),
          h('pre', { class: 'entry-text' }, clipText(entry.text, ENTRY_DISPLAY_CHARS)),
        ),
      ),
    ),
  );
}

/** E.g. "3 turns (14 messages)": turns as the history and the restore picker count them, with the messages they hold. */
function span(list: EntryView[], turns: number | undefined): string {
  const count = turns ?? list.filter((entry) => entry.kind === 'user').length;
  const turnWords = count === 0 ? text.reviewPartOfTurn : count === 1 ? text.oneTurn : fill(text.manyTurns, count);
  return fill(text.reviewSpan, turnWords, list.length === 1 ? text.oneMessage : fill(text.manyMessages, list.length));
}

function sumTokens(entries: EntryView[]): number {
  return entries.reduce((sum, entry) => sum + entry.tokens, 0);
}

function fold(title: string, open: boolean, ...children: Array<Node | null>): HTMLDetailsElement {
  const details = h('details', { class: 'fold' }, h('summary', {}, title), ...children);
  details.open = open;
  return details;
}

export class ReviewView {
  readonly element = h('section', { class: 'card review', attrs: { 'aria-labelledby': 'review-heading' } });
  private proposal: CompactionProposalView | undefined;
  private textarea: HTMLTextAreaElement | undefined;
  private instructions: HTMLInputElement | undefined;
  private readonly countLabel = h('span', { class: 'token-count', attrs: { id: 'summary-count' } });
  private readonly editedLabel = h('span', { class: 'edited-mark' });
  private readonly preview = h('div', { class: 'markdown' });
  private readonly droppedPreview = h('div', { class: 'markdown' });
  private readonly diffBox = h('div', { class: 'diff' });
  private buttons: HTMLButtonElement[] = [];
  private readonly buttonRow = h('div', { class: 'button-row' });
  /** The inline question Regenerate asks before it throws an edited summary away (while it is open). */
  private confirmation: HTMLElement | undefined;
  private rerenderTimer: ReturnType<typeof setTimeout> | undefined;
  private escapeArmed = false;

  constructor(private readonly callbacks: ReviewCallbacks) {
    this.element.hidden = true;
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.proposal) {
        event.preventDefault();
        this.escape();
      }
    });
  }

  /** Rebuilds only when the proposal changes, so typing and focus survive state updates. */
  update(proposal: CompactionProposalView | undefined, draft: ReviewDraft | undefined, busy: boolean): void {
    if (!proposal) {
      this.proposal = undefined;
      this.element.hidden = true;
      this.element.replaceChildren();
      return;
    }
    const same = this.proposal && this.proposal.id === proposal.id && this.proposal.summary === proposal.summary;
    if (!same) {
      this.proposal = proposal;
      const keep = draft && draft.proposalId === proposal.id && draft.baseSummary === proposal.summary;
      this.build(proposal, keep ? draft.text : proposal.summary, keep ? draft.regenerateInstructions : (proposal.instructions ?? ''));
    }
    for (const control of [...this.buttons, ...(this.confirmation?.querySelectorAll('button') ?? [])]) control.disabled = busy;
    this.element.setAttribute('aria-busy', String(busy));
  }

  showTokenCount(tokens: number): void {
    this.countLabel.textContent = fill(text.tokens, formatTokens(tokens));
  }

  private edited(): boolean {
    return this.proposal !== undefined && this.textarea !== undefined && this.textarea.value !== this.proposal.summary;
  }

  private escape(): void {
    if (this.edited() && !this.escapeArmed) {
      this.escapeArmed = true;
      this.callbacks.notice('warning', this.proposal?.handoff ? text.escapeAgainHandoff : text.escapeAgain);
      return;
    }
    this.cancel();
  }

  private cancel(): void {
    if (this.proposal) this.callbacks.post({ type: 'cancelProposal', proposalId: this.proposal.id });
  }

  private build(proposal: CompactionProposalView, summaryText: string, regenerateInstructions: string): void {
    this.escapeArmed = false;
    this.confirmation = undefined;
    const textarea = h('textarea', { class: 'summary-input', key: 'summary', attrs: { id: 'summary-input', rows: '14', spellcheck: 'true', 'aria-describedby': 'summary-count' } });
    textarea.value = summaryText;
    textarea.addEventListener('input', () => this.onEdit());
    const instructions = h('input', { class: 'text-input', key: 'regenerate-instructions', attrs: { id: 'regenerate-instructions', type: 'text', placeholder: text.regeneratePlaceholder } });
    instructions.value = regenerateInstructions;
    instructions.addEventListener('input', () => this.saveDraft());
    this.textarea = textarea;
    this.instructions = instructions;
    this.buttons = [
      button(proposal.handoff ? text.startNewSession : text.apply, () => this.apply(), { icon: 'check', key: 'apply', ...(proposal.handoff ? { title: text.startNewSessionTitle } : {}) }),
      button(text.regenerate, () => this.askRegenerate(), { icon: 'refresh', secondary: true, key: 'regenerate' }),
      button(text.cancel, () => this.cancel(), { icon: 'close', secondary: true, key: 'cancel', title: proposal.handoff ? text.cancelHandoffTitle : text.cancelTitle }),
    ];
    const dropped = h('div', { class: 'side-by-side' }, h('div', {}, h('h4', {}, fill(text.replacedContent, span(proposal.summarized, proposal.summarizedTurns), formatTokens(sumTokens(proposal.summarized)))), entryList(proposal.summarized)), h('div', {}, h('h4', {}, text.segmentSummary), this.droppedPreview));
    this.element.replaceChildren();
    append(this.element, [
      h('h2', { attrs: { id: 'review-heading' } }, proposal.handoff ? text.reviewHandoffHeading : text.reviewHeading, proposal.handoff ? badge(text.badgeNewSession, 'info') : proposal.auto ? badge(text.badgeAuto, 'info') : badge(text.badgeManual, 'info'), proposal.needsReview ? badge(text.badgeNeedsReview, 'warning') : null),
      h('p', { class: 'row-meta' }, fill(text.reviewFigures, formatTokens(proposal.tokensBefore), formatTokens(proposal.estimatedTokensAfter), span(proposal.summarized, proposal.summarizedTurns), span(proposal.kept, proposal.keptTurns))),
      proposal.instructions ? h('p', { class: 'row-meta' }, fill(text.reviewInstructions, proposal.instructions)) : null,
      this.problems(proposal),
      h('label', { class: 'field-label', attrs: { for: 'summary-input' } }, text.summaryEditable),
      textarea,
      h('div', { class: 'row-meta' }, this.countLabel, ' ', this.editedLabel),
      proposal.turnPrefixSummary ? fold(text.splitTurnSummary, false, h('pre', { class: 'entry-text' }, proposal.turnPrefixSummary)) : null,
      fold(text.preview, true, this.preview),
      fold(text.whatIsDropped, false, dropped),
      proposal.previousSummary !== undefined ? fold(text.changesFromPrevious, false, this.diffBox) : null,
      fold(fill(text.keptVerbatim, span(proposal.kept, proposal.keptTurns), formatTokens(sumTokens(proposal.kept))), false, entryList(proposal.kept)),
      h('label', { class: 'field-label', attrs: { for: 'regenerate-instructions' } }, text.regenerateInstructions),
      instructions,
      this.buttonRow,
    ]);
    this.buttonRow.replaceChildren(...this.buttons);
    this.element.hidden = false;
    this.refreshDerived();
  }

  private problems(proposal: CompactionProposalView): HTMLElement | null {
    if (proposal.problems.length === 0 && !proposal.needsReview) return null;
    const items = proposal.problems.length > 0 ? proposal.problems : [text.flaggedForReview];
    return h('div', { class: 'problems', attrs: { role: 'note', 'aria-label': text.problemsLabel } }, icon('warning'), h('ul', {}, ...items.map((problem) => h('li', {}, problem))));
  }

  private onEdit(): void {
    this.escapeArmed = false;
    this.saveDraft();
    if (this.rerenderTimer !== undefined) clearTimeout(this.rerenderTimer);
    this.rerenderTimer = setTimeout(() => this.refreshDerived(), RERENDER_DELAY_MS);
  }

  private saveDraft(): void {
    if (!this.proposal || !this.textarea || !this.instructions) return;
    this.callbacks.saveDraft({ proposalId: this.proposal.id, baseSummary: this.proposal.summary, text: this.textarea.value, regenerateInstructions: this.instructions.value });
  }

  /** Preview, diff, edited mark and token count follow the text in the textarea. */
  private refreshDerived(): void {
    const proposal = this.proposal;
    const summary = this.textarea?.value ?? '';
    if (!proposal) return;
    this.countLabel.textContent = text.countingTokens;
    this.callbacks.requestTokenCount(summary);
    this.editedLabel.textContent = this.edited() ? text.editedMark : '';
    this.preview.replaceChildren(renderMarkdown(summary));
    this.droppedPreview.replaceChildren(renderMarkdown(summary));
    if (proposal.previousSummary !== undefined) this.renderDiff(proposal.previousSummary, summary);
  }

  private renderDiff(before: string, after: string): void {
    const lines = diffLines(before, after);
    const stats = diffStats(lines);
    const pre = h('pre', { class: 'diff-lines' });
    for (const line of lines) {
      const mark = line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  ';
      pre.appendChild(h('span', { class: `diff-${line.kind}` }, mark + line.text, '\n'));
    }
    this.diffBox.replaceChildren(h('p', { class: 'row-meta' }, fill(text.diffStats, stats.added, stats.removed)), pre);
  }

  /** Regenerate replaces the summary: with edits in it, the person is asked first, in place, by keyboard as by mouse. */
  private askRegenerate(): void {
    if (!this.edited()) {
      this.regenerate();
      return;
    }
    if (this.confirmation) {
      this.confirmation.querySelector<HTMLButtonElement>('[data-key="regenerate-keep"]')?.focus();
      return;
    }
    const keep = button(text.keepEdits, () => this.closeConfirmation(), { icon: 'edit', secondary: true, key: 'regenerate-keep' });
    const discard = button(text.discardAndRegenerate, () => {
      this.closeConfirmation(false);
      this.regenerate();
    }, { icon: 'refresh', key: 'regenerate-discard' });
    const question = h(
      'div',
      { class: 'confirm', attrs: { role: 'alertdialog', 'aria-labelledby': 'regenerate-question' } },
      h('p', { attrs: { id: 'regenerate-question' } }, icon('warning'), ' ', text.regenerateDiscards),
      h('div', { class: 'button-row' }, discard, keep),
    );
    // Escape here answers the question (keep the edits); it must not reach the review's Escape, which cancels.
    question.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      event.stopPropagation();
      this.closeConfirmation();
    });
    this.confirmation = question;
    this.buttonRow.after(question);
    // The choice that loses nothing has focus: Enter by habit keeps the edits.
    keep.focus();
  }

  /** Takes the question away; `refocus`: focus goes back to Regenerate, where the person was. */
  private closeConfirmation(refocus = true): void {
    this.confirmation?.remove();
    this.confirmation = undefined;
    if (refocus) this.buttons.find((control) => control.dataset['key'] === 'regenerate')?.focus();
  }

  private regenerate(): void {
    if (this.proposal && this.instructions) this.callbacks.post({ type: 'regenerate', proposalId: this.proposal.id, instructions: this.instructions.value });
  }

  private apply(): void {
    if (!this.proposal || !this.textarea) return;
    this.callbacks.post({ type: 'applySummary', proposalId: this.proposal.id, summary: this.textarea.value, edited: this.edited() });
  }
}
