// Sample panel states and theme variables for the static preview harness (test/ui/panelPreview.mjs).

const summary = `## Goal
Make the session log crash-safe and add compaction with a review step.

## Progress
- Wrote \`src/core/storage/fileIo.ts\` (atomic append, fsync)
- **Done:** schema v1 with migrations
- In progress: pruning of old \`run_command\` outputs

## Key facts
| file | state |
| --- | --- |
| entries.ts | done |
| budget.ts | todo |

> The user wants every byte of the session kept.

\`\`\`ts
appendEntry(log, entry);
\`\`\``;

const previousSummary = `## Goal
Make the session log crash-safe.

## Progress
- Wrote \`src/core/storage/fileIo.ts\` (atomic append)
- In progress: schema v1`;

function entry(id, kind, title, tokens, text, pinned = false) {
  return { id, kind, title, tokens, text, pinned };
}

/** UsageFigures (src/shared/panelViewModels.ts) with zeros for what is not given. */
function figures(extra) {
  return { calls: 0, unreportedCalls: 0, promptTokens: 0, cachedTokens: 0, outputTokens: 0, pricedCalls: 0, cost: 0, summaries: 0, summarizedTokens: 0, ...extra };
}

function turnUsage(turn, request, minutesAgo, extra) {
  return { ...figures(extra), turn, request, when: new Date(Date.now() - minutesAgo * 60000).toISOString() };
}

export function sampleState() {
  return {
    session: { id: 's1', title: 'Crash-safe session log' },
    budget: {
      contextWindow: 128000, usable: 111616, used: 53100, reserved: 16384, percent: 47.6,
      estimated: true, unknown: false, exact: true,
      breakdown: { system: 2100, tools: 3400, summary: 1800, messages: 21000, toolResults: 24800, free: 58516 },
      model: 'gpt-4.1-mini', windowSource: "from the model's metadata", windowKnown: true, autoCompaction: true,
      lastCompaction: { when: new Date(Date.now() - 42 * 60000).toISOString(), tokensBefore: 98000, tokensAfter: 31000 },
    },
    proposal: {
      id: 'p1', summary, previousSummary, instructions: 'keep file paths', tokensBefore: 96000, estimatedTokensAfter: 28000,
      summarized: [
        entry('e1', 'user', 'Make the session log crash-safe', 40, 'Make the session log crash-safe. Use fsync.'),
        entry('e2', 'assistant', 'I will start with fileIo.ts', 120, 'I will start with fileIo.ts and write an atomic append.'),
        entry('e3', 'toolResult', 'run_command: npm test', 8200, 'PASS test/unit/fileIo.test.ts\n'.repeat(30)),
      ],
      kept: [entry('e4', 'user', 'Now add compaction', 30, 'Now add compaction with a review step.', true)],
      problems: ['The summary has no "Next steps" section.'], needsReview: true, auto: false,
    },
    history: {
      compactions: [
        { id: 'c1', when: new Date(Date.now() - 3 * 3600000).toISOString(), tokensBefore: 98000, tokensAfter: 31000, turns: 14, firstRequest: 'import pi sessions into the session store', edited: true, auto: true },
      ],
      pins: [{ entryId: 'e4', title: 'Now add compaction', tokens: 30 }],
      pinnable: [{ entryId: 'e5', title: 'Use the exact tokenizer for gpt-4.1', tokens: 22 }],
    },
    usage: {
      session: figures({ calls: 41, unreportedCalls: 1, promptTokens: 1_204_000, cachedTokens: 771_000, outputTokens: 12_400, pricedCalls: 41, cost: 0.8412, summaries: 2, summarizedTokens: 194_000 }),
      recentTurns: [
        turnUsage(14, 'import pi sessions into the session store', 190, { calls: 9, promptTokens: 402_000, cachedTokens: 301_000, outputTokens: 3_100, pricedCalls: 9, cost: 0.2714, summaries: 1, summarizedTokens: 98_000 }),
        turnUsage(15, 'Make the session log crash-safe', 75, { calls: 6, promptTokens: 233_000, cachedTokens: 171_000, outputTokens: 2_200, pricedCalls: 6, cost: 0.1502 }),
        turnUsage(16, 'Now add compaction', 12, { calls: 4, unreportedCalls: 1, promptTokens: 151_000, cachedTokens: 118_000, outputTokens: 900, pricedCalls: 4, cost: 0.0918, summaries: 1, summarizedTokens: 96_000 }),
      ],
      turnCount: 16,
    },
  };
}

/** A state where every string a person or model controls carries a hostile payload. */
export function hostileState(payloads, index) {
  const all = payloads.join('\n\n');
  const state = sampleState();
  const one = index === undefined ? all : payloads[index];
  state.session.title = one;
  state.budget.model = one;
  state.notice = { level: 'warning', text: one };
  state.proposal = {
    ...state.proposal,
    id: `hostile-${index ?? 'all'}`,
    summary: one,
    previousSummary: all,
    turnPrefixSummary: one,
    instructions: one,
    problems: [one],
    summarized: payloads.map((payload, i) => entry(`x${i}`, 'toolResult', payload, 10, payload)),
    kept: [entry('k', 'assistant', one, 5, one, true)],
  };
  state.history = {
    compactions: [{ id: 'c', when: 'not a date', tokensBefore: 1, tokensAfter: 1, turns: 1, firstRequest: one, edited: false, auto: false }],
    pins: [{ entryId: 'p', title: one, tokens: 1 }],
    pinnable: [{ entryId: 'q', title: one, tokens: 1 }],
  };
  state.usage = { ...state.usage, recentTurns: payloads.slice(0, 5).map((payload, i) => turnUsage(i + 1, payload, i, { calls: 1, promptTokens: 10 })) };
  return state;
}

const common = {
  '--vscode-font-family': 'system-ui, sans-serif', '--vscode-font-size': '13px',
  '--vscode-editor-font-family': 'monospace', '--vscode-editor-font-size': '12px',
};

export const THEMES = {
  dark: {
    ...common,
    '--vscode-foreground': '#cccccc', '--vscode-descriptionForeground': '#9d9d9d', '--vscode-editor-background': '#1f1f1f',
    '--vscode-sideBar-background': '#181818', '--vscode-widget-border': '#313131', '--vscode-panel-border': '#2b2b2b',
    '--vscode-button-background': '#0078d4', '--vscode-button-foreground': '#ffffff', '--vscode-button-hoverBackground': '#026ec1',
    '--vscode-button-secondaryBackground': '#313131', '--vscode-button-secondaryForeground': '#cccccc', '--vscode-button-secondaryHoverBackground': '#3c3c3c',
    '--vscode-button-border': '#ffffff12', '--vscode-focusBorder': '#0078d4',
    '--vscode-input-background': '#313131', '--vscode-input-foreground': '#cccccc', '--vscode-input-border': '#3c3c3c', '--vscode-input-placeholderForeground': '#989898',
    '--vscode-badge-background': '#616161', '--vscode-badge-foreground': '#f8f8f8',
    '--vscode-charts-red': '#f14c4c', '--vscode-charts-blue': '#3794ff', '--vscode-charts-yellow': '#cca700', '--vscode-charts-orange': '#d18616', '--vscode-charts-green': '#89d185', '--vscode-charts-purple': '#b180d7', '--vscode-terminal-ansiCyan': '#11a8cd',
    '--vscode-editorWarning-foreground': '#cca700', '--vscode-testing-iconPassed': '#73c991',
    '--vscode-inputValidation-infoBackground': '#063b49', '--vscode-inputValidation-infoBorder': '#007acc',
    '--vscode-inputValidation-warningBackground': '#352a05', '--vscode-inputValidation-warningBorder': '#b89500',
    '--vscode-inputValidation-errorBackground': '#5a1d1d', '--vscode-inputValidation-errorBorder': '#be1100',
    '--vscode-textCodeBlock-background': '#2b2b2b', '--vscode-textBlockQuote-border': '#616161',
    '--vscode-diffEditor-insertedLineBackground': '#9bb95533', '--vscode-diffEditor-removedLineBackground': '#ff000033',
    '--vscode-gitDecoration-addedResourceForeground': '#81b88b', '--vscode-gitDecoration-deletedResourceForeground': '#c74e39',
  },
  light: {
    ...common,
    '--vscode-foreground': '#3b3b3b', '--vscode-descriptionForeground': '#717171', '--vscode-editor-background': '#ffffff',
    '--vscode-sideBar-background': '#f8f8f8', '--vscode-widget-border': '#e5e5e5', '--vscode-panel-border': '#e5e5e5',
    '--vscode-button-background': '#005fb8', '--vscode-button-foreground': '#ffffff', '--vscode-button-hoverBackground': '#0258a8',
    '--vscode-button-secondaryBackground': '#e5e5e5', '--vscode-button-secondaryForeground': '#3b3b3b', '--vscode-button-secondaryHoverBackground': '#cccccc',
    '--vscode-button-border': '#0000001a', '--vscode-focusBorder': '#005fb8',
    '--vscode-input-background': '#ffffff', '--vscode-input-foreground': '#3b3b3b', '--vscode-input-border': '#cecece', '--vscode-input-placeholderForeground': '#767676',
    '--vscode-badge-background': '#cccccc', '--vscode-badge-foreground': '#3b3b3b',
    '--vscode-charts-red': '#e51400', '--vscode-charts-blue': '#1a85ff', '--vscode-charts-yellow': '#bf8803', '--vscode-charts-orange': '#d18616', '--vscode-charts-green': '#388a34', '--vscode-charts-purple': '#652d90', '--vscode-terminal-ansiCyan': '#0598bc',
    '--vscode-editorWarning-foreground': '#bf8803', '--vscode-testing-iconPassed': '#388a34',
    '--vscode-inputValidation-infoBackground': '#d6ecf2', '--vscode-inputValidation-infoBorder': '#007acc',
    '--vscode-inputValidation-warningBackground': '#f6f5d2', '--vscode-inputValidation-warningBorder': '#b89500',
    '--vscode-inputValidation-errorBackground': '#f2dede', '--vscode-inputValidation-errorBorder': '#be1100',
    '--vscode-textCodeBlock-background': '#f8f8f8', '--vscode-textBlockQuote-border': '#e5e5e5',
    '--vscode-diffEditor-insertedLineBackground': '#9bb95533', '--vscode-diffEditor-removedLineBackground': '#ff000033',
    '--vscode-gitDecoration-addedResourceForeground': '#587c0c', '--vscode-gitDecoration-deletedResourceForeground': '#ad0707',
  },
  highContrast: {
    ...common,
    '--vscode-foreground': '#ffffff', '--vscode-descriptionForeground': '#ffffff', '--vscode-editor-background': '#000000',
    '--vscode-sideBar-background': '#000000', '--vscode-contrastBorder': '#6fc3df', '--vscode-focusBorder': '#f38518',
    '--vscode-button-background': '#000000', '--vscode-button-foreground': '#ffffff', '--vscode-button-border': '#6fc3df',
    '--vscode-button-secondaryBackground': '#000000', '--vscode-button-secondaryForeground': '#ffffff',
    '--vscode-input-background': '#000000', '--vscode-input-foreground': '#ffffff', '--vscode-input-border': '#6fc3df',
    '--vscode-badge-background': '#000000', '--vscode-badge-foreground': '#ffffff',
    // As in VS Code's Dark High Contrast: charts.orange unset (it derives from a find-match colour the theme leaves empty).
    '--vscode-charts-red': '#f48771', '--vscode-charts-blue': '#59a4f9', '--vscode-charts-yellow': '#ffd370', '--vscode-charts-green': '#89d185', '--vscode-charts-purple': '#b180d7', '--vscode-terminal-ansiCyan': '#00cdcd',
    '--vscode-editorWarning-foreground': '#ffd700', '--vscode-testing-iconPassed': '#89d185',
    '--vscode-inputValidation-infoBackground': '#000000', '--vscode-inputValidation-infoBorder': '#6fc3df',
    '--vscode-inputValidation-warningBackground': '#000000', '--vscode-inputValidation-warningBorder': '#ffd700',
    '--vscode-inputValidation-errorBackground': '#000000', '--vscode-inputValidation-errorBorder': '#f48771',
    '--vscode-textCodeBlock-background': '#000000', '--vscode-textBlockQuote-border': '#ffffff',
    '--vscode-gitDecoration-addedResourceForeground': '#a1e3ad', '--vscode-gitDecoration-deletedResourceForeground': '#c74e39',
  },
};
