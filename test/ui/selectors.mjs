// Every DOM selector and UI string the Playwright checks rely on, in one place (the workbench DOM changes between releases).

export const SELECTORS = {
  workbench: '.monaco-workbench',
  // The extension's "Context budget" status bar item: the DOM id ends with its item id; the aria-label is its accessibility label.
  budgetStatusItem: '.statusbar-item:is([id$="compactionAgent.budget" i], [aria-label^="Context budget" i])',
  codicon: '.codicon',
  chatInput: '.interactive-input-part .monaco-editor',
  suggestRow: '.suggest-widget .monaco-list-row',
  quickInput: '.quick-input-widget',
  quickInputRow: '.quick-input-widget .monaco-list-row',
  editorTab: '.tabs-container .tab',
  // Inside the webview (media/panelBudget.ts renders it).
  panelContent: '#budget-heading',
};

export const TEXT = {
  participant: '@agent',
  panelTitle: 'Context & Compaction',
  showBudgetCommand: 'Compaction Agent: Show Context Budget',
  openChatCommand: 'Chat: Open Chat',
};

export const THEMES = {
  light: 'Default Light Modern',
  dark: 'Default Dark Modern',
};
