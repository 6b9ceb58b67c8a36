// Every DOM selector and UI string the Playwright checks rely on, in one place (the workbench DOM changes between releases).

export const SELECTORS = {
  workbench: '.monaco-workbench',
  // The extension's "Context budget" status bar item: the DOM id ends with its item id; the aria-label is its accessibility label.
  budgetStatusItem: '.statusbar-item:is([id$="compactionAgent.budget" i], :has(> [aria-label^="Context budget" i]), [aria-label^="Context budget" i])',
  codicon: '.codicon',
  chatInput: '.interactive-input-part .monaco-editor',
  chatInputPart: '.interactive-input-part',
  chatResponse: '.interactive-item-container.interactive-response',
  suggestRow: '.suggest-widget .monaco-list-row',
  suggestWidgetVisible: '.suggest-widget.visible',
  quickInput: '.quick-input-widget',
  quickInputRow: '.quick-input-widget .monaco-list-row',
  editorTab: '.tabs-container .tab',
  diffEditor: '.monaco-diff-editor',
  // VS Code's inline tool confirmation in a chat response (Allow / Skip).
  chatConfirmation: '.chat-confirmation-widget-container',
  button: '.monaco-button',
  // Our "Ask @agent" action in the Chat view's title bar (view/title menu).
  askAgentTitleAction: '.title-actions .action-label[aria-label^="Ask @agent"]',
  // Inside the webview (media/panel*.ts render these).
  panelContent: '#budget-heading',
  budgetBar: '.budget-bar',
  budgetHeadline: '.budget-headline',
  budgetLegendNumber: '.legend .num',
  reviewHeading: '#review-heading',
  summaryInput: '#summary-input',
  historyHeading: '#history-heading',
  historyRow: 'section[aria-labelledby="history-heading"] .row',
  checkpointsHeading: '#checkpoints-heading',
  usageHeading: '#usage-heading',
  usageSection: 'section[aria-labelledby="usage-heading"]',
  checkpointRow: 'section[aria-labelledby="checkpoints-heading"] .row',
  // Settings editor.
  settingsSearch: '.settings-header .suggest-input-container .monaco-editor',
  settingItem: '.settings-editor .setting-item',
};

export const TEXT = {
  participant: '@agent',
  panelTitle: 'Context & Compaction',
  showBudgetCommand: 'Compaction Agent: Show Context Budget',
  restoreCommand: 'Compaction Agent: Restore Pre-Compaction Branch',
  openChatCommand: 'Chat: Open Chat',
  openSettingsUiCommand: 'Preferences: Open Settings (UI)',
  // The scripted endpoint's model id (test/support/scriptedEndpoint.ts default) and its replies' label.
  demoModel: 'demo-model',
  demoLabel: '[demo endpoint]',
};

/** The colour theme of each theme kind's workbench (the High Contrast ones run only the checks that name them). */
export const THEMES = {
  light: 'Default Light Modern',
  dark: 'Default Dark Modern',
  'hc-black': 'Default High Contrast',
  'hc-light': 'Default High Contrast Light',
};

/** Where a check runs unless it names its themes (`check.themes`): every check in light and dark. */
export const MAIN_THEMES = ['light', 'dark'];
