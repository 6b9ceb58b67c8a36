// Webview entry of the "Context & Compaction" panel: keeps the UI state, talks to the host, renders the sections.

// codicon.css is copied next to the bundle by media/copyAssets.mjs and linked by the host's HTML.
import './panel.css';
import { formatAgo } from '../src/shared/budgetFormat';
import { isHostMessage, isUsageView } from '../src/shared/panelProtocol';
import type { HostMessage, WebviewMessage } from '../src/shared/panelProtocol';
import { emptyPanelState } from '../src/shared/panelViewModels';
import type { Notice, NoticeLevel, PanelState } from '../src/shared/panelViewModels';
import { renderBudget } from './panelBudget';
import { badge, button, h, icon, replaceChildrenKeepingFocus } from './panelDom';
import { renderCheckpoints, renderHistory, renderPins, renderSubtasks } from './panelHistory';
import { renderDrops } from './panelDrops';
import { FocusKeeper } from './panelFocus';
import { ReviewView } from './panelReview';
import { renderUsage } from './panelUsage';
import { text } from './panelText';
import { fill } from '../src/shared/panelStrings';
import type { ReviewDraft } from './panelReview';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: UiState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What survives hiding the panel: the last state (shown at once) and everything the person typed. */
interface UiState {
  panel?: PanelState;
  compactInstructions: string;
  draft?: ReviewDraft;
}

const TOKEN_COUNT_DELAY_MS = 300;
const BUSY_LABELS = { summarizing: text.busySummarizing, pruning: text.busyPruning, applying: text.busyApplying };

const api = acquireVsCodeApi();

function restoreUiState(raw: unknown): UiState {
  const fresh: UiState = { compactInstructions: '' };
  if (typeof raw !== 'object' || raw === null) return fresh;
  const saved = raw as Partial<UiState>;
  const panel = typeof saved.panel === 'object' && saved.panel !== null && Array.isArray(saved.panel.history?.compactions) ? saved.panel : undefined;
  // A state saved by an older version may carry no usage, or one of another shape: show none until the host sends one.
  if (panel?.usage !== undefined && !isUsageView(panel.usage)) delete panel.usage;
  return {
    panel,
    compactInstructions: typeof saved.compactInstructions === 'string' ? saved.compactInstructions : '',
    draft: restoreDraft(saved.draft),
  };
}

function restoreDraft(raw: unknown): ReviewDraft | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const draft = raw as Partial<ReviewDraft>;
  if (typeof draft.proposalId !== 'string' || typeof draft.baseSummary !== 'string' || typeof draft.text !== 'string') return undefined;
  const regenerateInstructions = typeof draft.regenerateInstructions === 'string' ? draft.regenerateInstructions : '';
  return { proposalId: draft.proposalId, baseSummary: draft.baseSummary, text: draft.text, regenerateInstructions };
}

const ui = restoreUiState(api.getState());
const focus = new FocusKeeper(ui.panel);
const post = (message: WebviewMessage): void => {
  focus.noteSent(message);
  api.postMessage(message);
};
const save = (): void => api.setState(ui);

const statusRegion = h('div', { class: 'notice', attrs: { role: 'status', 'aria-live': 'polite' } });
const alertRegion = h('div', { class: 'notice', attrs: { role: 'alert', 'aria-live': 'assertive' } });
const budgetHost = h('div');
const actionsHost = h('div');
const historyHost = h('div');
const dropsHost = h('div');
const checkpointsHost = h('div');
const pinsHost = h('div');
const usageHost = h('div');

let tokenRequestId = 0;
let lastStateNotice = 'null';
/** Whether the banner on show is the state's notice (it goes when the state drops it), not a transient one. */
let stateBannerShown = false;
/** The session the panel shows: another session's panel starts without the previous one's banner. */
let shownSessionId = ui.panel?.session?.id;
let tokenTimer: ReturnType<typeof setTimeout> | undefined;

const review = new ReviewView({
  post,
  requestTokenCount(text) {
    if (tokenTimer !== undefined) clearTimeout(tokenTimer);
    tokenTimer = setTimeout(() => post({ type: 'countTokens', requestId: ++tokenRequestId, text }), TOKEN_COUNT_DELAY_MS);
  },
  saveDraft(draft) {
    ui.draft = draft;
    save();
  },
  notice: (level, text) => showNotice({ level, text }),
});

function showNotice(notice: Notice | undefined, fromState = false): void {
  stateBannerShown = fromState && notice !== undefined;
  const region = notice?.level === 'error' ? alertRegion : statusRegion;
  (region === alertRegion ? statusRegion : alertRegion).replaceChildren();
  region.replaceChildren();
  if (!notice) return;
  const glyph: Record<NoticeLevel, string> = { info: 'info', warning: 'warning', error: 'error' };
  region.className = `notice notice-${notice.level}`;
  region.append(icon(glyph[notice.level]), h('span', {}, notice.text));
}

function renderActions(state: PanelState): HTMLElement {
  const disabled = state.session === undefined || state.busy !== undefined || state.proposal !== undefined;
  const input = h('input', { class: 'text-input', key: 'compact-instructions', attrs: { id: 'compact-instructions', type: 'text', placeholder: text.compactInstructionsPlaceholder } });
  input.value = ui.compactInstructions;
  input.disabled = disabled;
  input.addEventListener('input', () => {
    ui.compactInstructions = input.value;
    save();
  });
  const compact = (): void => post({ type: 'compactNow', instructions: input.value });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !disabled) compact();
  });
  // Focusable from script only: focus waits here while the button that started the work is disabled.
  const busy = state.busy
    ? h('p', { class: 'busy', key: 'busy', attrs: { role: 'status', tabindex: '-1' } }, icon('loading codicon-modifier-spin'), ` ${fill(text.busyStarted, BUSY_LABELS[state.busy.what], formatAgo(state.busy.since, new Date(), navigator.language))}`)
    : null;
  return h(
    'section',
    { class: 'card', attrs: { 'aria-labelledby': 'actions-heading' } },
    h('h2', { attrs: { id: 'actions-heading' } }, text.actions),
    busy,
    h('div', { class: 'button-row' }, button(text.pruneNow, () => post({ type: 'pruneNow' }), { icon: 'filter', secondary: true, disabled, key: 'prune', title: text.pruneNowTitle })),
    h('label', { class: 'field-label', attrs: { for: 'compact-instructions' } }, text.compactInstructions),
    h('div', { class: 'input-row' }, input, button(text.compactNow, compact, { icon: 'fold', disabled, key: 'compact' })),
    h(
      'div',
      { class: 'button-row' },
      button(text.handOff, () => post({ type: 'handOff', instructions: input.value }), {
        icon: 'export',
        secondary: true,
        disabled,
        key: 'handoff',
        title: text.handOffTitle,
      }),
    ),
  );
}

function render(state: PanelState): void {
  const locked = state.busy !== undefined;
  replaceChildrenKeepingFocus(budgetHost, [renderBudget(state.budget, state.session !== undefined)]);
  replaceChildrenKeepingFocus(actionsHost, [renderActions(state)]);
  review.update(state.proposal, ui.draft, locked);
  replaceChildrenKeepingFocus(dropsHost, [renderDrops(state, locked || state.session === undefined || state.proposal !== undefined, post)]);
  replaceChildrenKeepingFocus(historyHost, [renderHistory(state.history, locked || state.session === undefined, post)]);
  const subtasks = renderSubtasks(state.history, post);
  replaceChildrenKeepingFocus(checkpointsHost, [renderCheckpoints(state.history, locked || state.session === undefined, post), ...(subtasks ? [subtasks] : [])]);
  replaceChildrenKeepingFocus(pinsHost, [renderPins(state.history, locked || state.session === undefined, post)]);
  replaceChildrenKeepingFocus(usageHost, [renderUsage(state.usage)]);
  const title = document.getElementById('session-title');
  if (title) title.textContent = state.session ? state.session.title : text.noSession;
  // Another window's session, shown here: said in words beside its title, not left to a notification that goes.
  const readOnly = document.getElementById('session-read-only');
  if (readOnly) readOnly.hidden = state.session?.readOnly !== true;
}

function onHostMessage(message: HostMessage): void {
  switch (message.type) {
    case 'state': {
      ui.panel = message.state;
      if (ui.draft && ui.draft.proposalId !== message.state.proposal?.id) ui.draft = undefined;
      save();
      render(message.state);
      focus.afterRender(message.state);
      const sessionId = message.state.session?.id;
      if (sessionId !== shownSessionId) {
        // Another session is shown now: nothing said about the previous one stays on screen.
        shownSessionId = sessionId;
        lastStateNotice = 'null';
        showNotice(undefined);
      }
      // The same notice arrives with every state push; announce it once, and take it down when the state drops it.
      const notice = JSON.stringify(message.state.notice ?? null);
      if (message.state.notice && notice !== lastStateNotice) showNotice(message.state.notice, true);
      else if (!message.state.notice && stateBannerShown) showNotice(undefined);
      lastStateNotice = notice;
      return;
    }
    case 'tokenCount':
      if (message.requestId === tokenRequestId) review.showTokenCount(message.tokens);
      return;
    case 'notice':
      if (message.notice.level === 'error') focus.forget();
      showNotice(message.notice);
      return;
  }
}

function readOnlyBadge(): HTMLElement {
  const element = badge(text.badgeReadOnly, 'warning', text.badgeReadOnlyTitle);
  element.id = 'session-read-only';
  element.hidden = true;
  return element;
}

function mount(): void {
  const app = document.getElementById('app') ?? document.body;
  app.replaceChildren(
    h('header', { class: 'panel-header' }, h('h1', {}, icon('pie-chart'), ` ${text.pageTitle}`), h('span', { class: 'muted', attrs: { id: 'session-title' } }), readOnlyBadge(), button(text.settings, () => post({ type: 'openSettings' }), { icon: 'gear', secondary: true, key: 'settings', ariaLabel: text.settingsLabel })),
    statusRegion,
    alertRegion,
    focus.announcer,
    budgetHost,
    actionsHost,
    review.element,
    dropsHost,
    historyHost,
    checkpointsHost,
    pinsHost,
    usageHost,
  );
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (isHostMessage(event.data)) onHostMessage(event.data);
  });
  render(ui.panel ?? emptyPanelState());
  post({ type: 'ready' });
}

mount();
