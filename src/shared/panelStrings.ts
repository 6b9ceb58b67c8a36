// The panel webview's text in English; the host translates each string with vscode.l10n and hands them to the page.

/** Every string the webview shows; `{0}`, `{1}`… are filled like vscode.l10n.t fills them. */
export const PANEL_STRINGS = {
  pageTitle: 'Context & Compaction',
  pageLabel: 'Context and compaction',
  noSession: 'No active session',
  settings: 'Settings',
  settingsLabel: 'Open the Compaction Agent settings',
  busySummarizing: 'Summarizing older turns…',
  busyPruning: 'Pruning old tool outputs…',
  busyApplying: 'Applying the compaction…',
  busyStarted: '{0} (started {1})',
  actions: 'Actions',
  pruneNow: 'Prune now',
  pruneNowTitle: 'Hide old tool outputs from the model (they stay in the session)',
  compactInstructions: 'Compaction instructions',
  compactInstructionsPlaceholder: 'Optional: what the summary must keep',
  compactNow: 'Compact now',
  handOff: 'New session from summary',
  handOffTitle: 'Summarize this session (with the instructions above), review it, then start a new session from it; this one stays whole',
  startNewSession: 'Start new session',
  startNewSessionTitle: 'Start a new session seeded with this summary; this session stays whole',
  reviewHandoffHeading: 'Review hand-off summary ',
  badgeNewSession: 'new session',
  dropConfirm: '{0} {1}? It {2} ~{3} tokens ({4} → {5} of {6} usable). Nothing is deleted.',
  dropVerbFrees: 'frees',
  dropVerbBringsBack: 'brings back',
  drop: 'Drop',
  bringBack: 'Bring back',
  dropStepLabel: '{0} {1}: drop this tool step with its results',
  badgeDropped: 'dropped',
  oneMessage: '1 message',
  manyMessages: '{0} messages',
  dropTurn: 'Drop…',
  dropTurnLabel: 'Drop turn {0}: {1}',
  dropsHeading: 'Drop from context',
  dropsIntro: 'Take a failed approach, a turn or one tool step (with its call and results) out of what the model sees. You see what it frees before you confirm; nothing is deleted, and later summaries say it was dropped on purpose.',
  dropsEmpty: 'No turns in the context yet.',
  dropRangePlaceholder: 'Turns, e.g. 2-4',
  dropRangeLabel: 'Drop a range of turns',
  measureDrop: 'Measure drop',
  undoLatestDrop: 'Undo latest drop',
  subtasksHeading: 'Sub-tasks',
  subtasksIntro: 'Each ran in its own session with read-only tools; only its answer joined this conversation.',
  subtaskOneCall: '1 model call reported · {0} tokens',
  subtaskManyCalls: '{0} model calls reported · {1} tokens',
  open: 'Open',
  openSubtaskLabel: 'Open the session of the sub-task {0}',
  budgetHeading: 'Context budget',
  budgetNoSession: 'No active session. Start a chat with @agent to see its context budget.',
  budgetCounting: 'Counting the tokens of this session…',
  budgetUsable: ' {0} of {1} usable tokens',
  budgetWindowUnknown: ' tokens used; the model\'s window is unknown',
  budgetBarLabel: 'Context window {0} tokens: {1}',
  segmentSystem: 'System prompt',
  segmentInstructions: 'Instructions',
  segmentTools: 'Tools',
  segmentSummary: 'Summary',
  segmentMessages: 'Messages',
  segmentToolResults: 'Tool results',
  segmentFree: 'Free',
  segmentReserved: 'Reserved for output',
  levelWarning: 'Warning: filling up ({0} or more used)',
  levelError: 'Error: nearly full ({0} or more used)',
  badgeUnknown: 'unknown',
  badgeUnknownTitle: 'Unknown until the next model reply (right after a compaction)',
  badgeEstimate: 'estimate',
  badgeEstimateTitle: 'No usage report from the endpoint yet',
  badgeExact: 'exact',
  badgeExactTitle: 'The local tokenizer is exact for this model',
  badgeUntilLoaded: 'unknown until loaded',
  badgeUntilLoadedTitle: 'The server has not loaded the model: its window is known once it does (the next request loads it)',
  badgeWindowUnknown: 'window unknown',
  badgeWindowUnknownTitle: 'No source told us the model\'s context window; set compactionAgent.context.windowTokens',
  factModel: 'Model',
  factNone: 'none',
  factWindow: 'Window',
  factCounts: 'Counts',
  factAutoCompaction: 'Auto-compaction',
  factLastCompaction: 'Last compaction',
  historyHeading: 'Compactions on this branch',
  historyEmpty: 'No compaction yet.',
  partOfTurn: 'Part of a turn',
  oneTurn: '1 turn',
  manyTurns: '{0} turns',
  turnsFrom: '{0} from “{1}”',
  badgeAuto: 'auto',
  badgeManual: 'manual',
  badgeEdited: 'edited',
  badgeEditedTitle: 'The summary was edited before it was applied',
  restoreBranch: 'Restore pre-compaction branch',
  restoreBranchLabel: '{0}: before the compaction of {1}',
  checkpointsHeading: 'Checkpoints',
  checkpointsIntro: 'Restore the files, the conversation or both to before a request. Nothing is lost: a restore is itself a checkpoint.',
  checkpointsEmpty: 'No request yet.',
  noFileChanged: 'no file changed since',
  oneFileChanged: '1 file changed since: {0}',
  manyFilesChanged: '{0} files changed since: {1}',
  andMore: '{0} and {1} more',
  restoreCheckpoint: 'Restore…',
  restoreCheckpointLabel: 'Restore to before {0}',
  pinsHeading: 'Pinned messages',
  pinsIntro: 'Pinned messages survive every compaction verbatim.',
  pinsEmpty: 'Nothing pinned.',
  emptyMessage: '(empty message)',
  tokens: '{0} tokens',
  unpin: 'Unpin',
  unpinLabel: 'Unpin "{0}"',
  recentMessages: 'Recent messages',
  pin: 'Pin',
  pinLabel: 'Pin "{0}"',
  usageHeading: 'Tokens and cost',
  usageNoSession: 'No active session.',
  noneReported: 'none reported',
  cachedShare: '{0} ({1}%)',
  callsReported: '{0} with a usage report',
  callsUnreported: '{0}, {1} without',
  usagePrompt: 'Prompt',
  usageCached: 'Cached',
  usageOutput: 'Output',
  usageModelCalls: 'Model calls',
  usageSummaries: 'Summaries',
  usageSummariesOf: '{0} of {1} tokens',
  usageCost: 'Cost',
  usageRequest: 'Request',
  emptyRequest: '(empty request)',
  lastTurns: 'Last {0} of {1} turns',
  turns: 'Turns',
  premiumOne: 'Premium requests: 1 request to {0} on this branch; with Copilot each may count as a premium request.',
  premiumMany: 'Premium requests: {0} requests to {1} on this branch; with Copilot each may count as a premium request.',
  usageNote: 'Figures as the endpoint reported them for this branch. Summary calls report no usage; cost shows where the server reports it (OpenRouter does).',
  nothing: 'Nothing.',
  emptyEntry: '(empty)',
  badgePinned: 'pinned',
  oneEntry: '1 entry',
  manyEntries: '{0} entries',
  escapeAgain: 'Press Escape again to discard your edits and cancel this compaction.',
  escapeAgainHandoff: 'Press Escape again to discard your edits and cancel this hand-off.',
  regeneratePlaceholder: 'e.g. keep every file path and error message',
  apply: 'Apply',
  regenerate: 'Regenerate',
  regenerateDiscards: 'Regenerate replaces the summary: your edits to it will be lost.',
  discardAndRegenerate: 'Discard edits and regenerate',
  keepEdits: 'Keep my edits',
  cancel: 'Cancel',
  cancelTitle: 'Cancel this compaction (Escape)',
  cancelHandoffTitle: 'Cancel this hand-off; no session is started (Escape)',
  replacedContent: 'Replaced content ({0}, {1} tokens)',
  reviewHeading: 'Review compaction ',
  badgeNeedsReview: 'needs review',
  reviewFigures: '{0} → about {1} tokens · {2} summarized, {3} kept',
  reviewInstructions: 'Instructions: {0}',
  summaryEditable: 'Summary (editable)',
  splitTurnSummary: 'Summary of the split turn’s beginning',
  preview: 'Preview',
  whatIsDropped: 'What is dropped',
  changesFromPrevious: 'Changes from the previous summary',
  keptVerbatim: 'Kept verbatim ({0}, {1} tokens)',
  regenerateInstructions: 'Instructions for Regenerate',
  flaggedForReview: 'The summary was flagged for review.',
  problemsLabel: 'Problems found in the summary',
  countingTokens: 'counting tokens…',
  editedMark: '· edited',
  diffStats: '{0} lines added, {1} removed',
  announceReviewReady: 'Compaction review ready: {0} → about {1} tokens. The summary is in the text box.',
  announceHandoffReady: 'Hand-off review ready: {0} → about {1} tokens. The summary is in the text box.',
  announceNewProposal: 'New proposal: {0} → about {1} tokens. The new summary is in the text box.',
  announceApplied: 'Applied: {0} → {1} tokens.',
  announceSessionStarted: 'New session started from the summary.',
  announceReviewClosed: 'Review closed; nothing changed.',
} as const satisfies Record<string, string>;

export type PanelStringKey = keyof typeof PANEL_STRINGS;
export type PanelStrings = { readonly [K in PanelStringKey]: string };

/** The page attribute that carries the translated strings (JSON) from the host to the webview. */
export const PANEL_STRINGS_ATTRIBUTE = 'data-strings';

/** Every key, in declaration order. */
export function panelStringKeys(): PanelStringKey[] {
  return Object.keys(PANEL_STRINGS) as PanelStringKey[];
}

/**
 * The strings the host put in the page. A missing, non-string or empty entry keeps its English text, and a
 * translation that drops a `{n}` placeholder the English has is not used, so a bad bundle cannot hide a number.
 */
export function parsePanelStrings(raw: unknown): PanelStrings {
  const given = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const strings: Record<string, string> = {};
  for (const key of panelStringKeys()) {
    const english = PANEL_STRINGS[key];
    const value = given[key];
    const placeholders = english.match(/\{\d+\}/g) ?? [];
    const usable = typeof value === 'string' && value.trim() !== '' && placeholders.every((placeholder) => value.includes(placeholder));
    strings[key] = usable ? value : english;
  }
  return strings as PanelStrings;
}

/** Fills `{0}`, `{1}`… with the values, as vscode.l10n.t does; a placeholder without a value stays as it is. */
export function fill(template: string, ...values: ReadonlyArray<string | number>): string {
  return template.replace(/\{(\d+)\}/g, (match, index: string) => {
    const value = values[Number(index)];
    return value === undefined ? match : String(value);
  });
}
