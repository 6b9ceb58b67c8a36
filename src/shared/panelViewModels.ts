// View models the backend fills for the status bar and the compaction panel: plain data, no functions.


/** Tokens per part of the prompt; `free` is what is left of the usable budget. */
export interface BudgetBreakdown {
  /** The system prompt without the instructions section. */
  system: number;
  /** The user's instruction files (AGENTS.md, .github/copilot-instructions.md) joined to the system prompt. */
  instructions: number;
  tools: number;
  summary: number;
  messages: number;
  toolResults: number;
  free: number;
}

export interface BudgetView {
  contextWindow: number;
  /** contextWindow minus the output reserve: what the prompt may fill. */
  usable: number;
  used: number;
  /** Output reserve, shown apart and never counted as used. */
  reserved: number;
  /** used / usable, 0..100 (may exceed 100 on overflow). */
  percent: number;
  /** No usage report from the endpoint yet: counts are local estimates. */
  estimated: boolean;
  /** Right after a compaction, until the next usage report. */
  unknown: boolean;
  /** The local tokenizer is exact for this model. */
  exact: boolean;
  breakdown: BudgetBreakdown;
  model: string;
  /** Where the window size came from, in words (e.g. "from the endpoint's model list"), so a wrong size is easy to trace. */
  windowSource: string;
  /** False when no source told us the window: the figures are then shown without a percentage. */
  windowKnown: boolean;
  /** The server has not loaded the model yet: its window is unknown until it does (only a trained or maximum length is). */
  windowUntilLoaded?: boolean;
  /** Why the endpoint's last usage report was not believed (e.g. a server that truncated the prompt). */
  reportNote?: string;
  autoCompaction: boolean;
  /** This branch was restored before a compaction: nothing is compacted without asking until the person compacts or resumes. */
  autoCompactionPaused?: boolean;
  /** `when` is an ISO timestamp. */
  lastCompaction?: { when: string; tokensBefore: number; tokensAfter: number };
  /** At or above the status bar's warning or error threshold (`threshold`, a percent): shown in words and icon, not only in colour. */
  alert?: { level: 'warning' | 'error'; threshold: number };
}

export type EntryKind = 'user' | 'assistant' | 'toolResult' | 'summary' | 'other';

export interface EntryView {
  id: string;
  kind: EntryKind;
  /** One line. */
  title: string;
  tokens: number;
  /** The content, possibly long; always rendered as text. */
  text: string;
  pinned: boolean;
}

export interface CompactionProposalView {
  id: string;
  summary: string;
  turnPrefixSummary?: string;
  /** The summary this compaction replaces, for the line diff. */
  previousSummary?: string;
  instructions?: string;
  tokensBefore: number;
  estimatedTokensAfter: number;
  summarized: EntryView[];
  kept: EntryView[];
  /** The person's turns (requests) among the summarized and the kept messages; 0 when only part of a turn. */
  summarizedTurns?: number;
  keptTurns?: number;
  /** Why the summary may be wrong (e.g. missing sections, too long); listed when needsReview. */
  problems: string[];
  needsReview: boolean;
  auto: boolean;
  /** A hand-off: Apply starts a new session seeded with the summary; this session stays as it is. */
  handoff?: boolean;
}

export interface CompactionHistoryItem {
  id: string;
  /** ISO timestamp. */
  when: string;
  tokensBefore: number;
  tokensAfter: number;
  /** The person's turns it summarized, and the first of their requests (shortened; empty when none). */
  turns: number;
  firstRequest: string;
  edited: boolean;
  auto: boolean;
}

export interface PinView {
  entryId: string;
  title: string;
  tokens: number;
}

/** A point the files (and the conversation) can be restored to: before a request, or before an earlier restore. */
export interface CheckpointView {
  entryId: string;
  kind: 'request' | 'restore';
  title: string;
  /** ISO timestamp. */
  when: string;
  /** Files changed from this point on (the first few when there are many). */
  files: string[];
  /** How many files changed from this point on (absent in states saved by older versions: then files.length). */
  fileCount?: number;
  /** What a restore cannot put back from this point on (commands run without a snapshot), in words; absent when nothing. */
  unrecorded?: string;
}

/** A delegated sub-task on the branch: its child session, to open from the panel. */
export interface SubtaskView {
  sessionId: string;
  /** The task as the agent wrote it (shortened). */
  task: string;
  /** Model calls the sub-task made (with a usage report), and their prompt and output tokens. */
  calls: number;
  tokens: number;
}

/** How many older items each history list leaves out (the palette commands reach them). */
export interface HistoryOmitted {
  compactions: number;
  checkpoints: number;
  subtasks: number;
  pins: number;
}

export interface HistoryView {
  /** The newest compactions on the current branch, oldest first. */
  compactions: CompactionHistoryItem[];
  /** Checkpoints on the current branch, newest first (absent in states saved by older versions). */
  checkpoints?: CheckpointView[];
  /** Delegated sub-tasks on the current branch, newest first (absent in states saved by older versions). */
  subtasks?: SubtaskView[];
  pins: PinView[];
  /** Recent messages that can be pinned (not pinned yet). */
  pinnable: PinView[];
  /** Set when a list above holds only the newest of its items: how many older ones each leaves out. */
  omitted?: HistoryOmitted;
}

/** Tokens, summaries and cost added up over some model calls (a turn, or the whole branch). */
export interface UsageFigures {
  /** Model calls whose usage the endpoint reported (the token figures add up these). */
  calls: number;
  /** Model calls without a usage report (failed or cut-off calls, servers that send none). */
  unreportedCalls: number;
  /** Prompt tokens as reported, cached ones included. */
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
  /** Calls that reported a cost; `cost` adds up only these (USD). */
  pricedCalls: number;
  cost: number;
  /** Compactions made (their summary calls report no usage, so they are counted apart). */
  summaries: number;
  /** Context tokens those summaries replaced (the sum of their tokensBefore). */
  summarizedTokens: number;
}

export interface TurnUsageView extends UsageFigures {
  /** 1-based position of the turn on the branch. */
  turn: number;
  /** The person's request, shortened to one line. */
  request: string;
  /** ISO timestamp of the request. */
  when: string;
}

export interface UsageView {
  /** Everything on the current branch. */
  session: UsageFigures;
  /** The last few turns, oldest first. */
  recentTurns: TurnUsageView[];
  /** All turns on the branch (recentTurns may hold fewer). */
  turnCount: number;
  /** Set when the session talks to a VS Code model (Copilot): its calls, each of which may be a premium request. */
  premiumRequests?: { model: string; requests: number };
}

export type BusyWhat = 'summarizing' | 'pruning' | 'applying';
export type NoticeLevel = 'info' | 'warning' | 'error';

export interface Notice {
  level: NoticeLevel;
  text: string;
}

/** One tool step of a turn in the context, as the drop section lists it ("3.2 read_file"). */
export interface ContextStepView {
  number: string;
  tools: string;
  dropped: boolean;
}

/** One turn of the context since the latest summary, numbered as /drop numbers it. */
export interface ContextTurnView {
  number: number;
  request: string;
  messages: number;
  dropped: boolean;
  /** The turn's newest tool steps. */
  steps: ContextStepView[];
  /** How many earlier tool steps of the turn `steps` leaves out (absent when none). */
  stepsOmitted?: number;
}

/** A drop (or its undo) measured and waiting for the person's confirmation. */
export interface DropPreviewView {
  id: string;
  label: string;
  /** False for an undo: the tokens come back. */
  dropped: boolean;
  tokens: number;
  usedBefore: number;
  usedAfter: number;
  usable: number;
}

export interface PanelState {
  /** `readOnly`: another window holds the session (this window shows it, that one writes it). */
  session?: { id: string; title: string; readOnly?: boolean };
  budget?: BudgetView;
  proposal?: CompactionProposalView;
  /** The context's newest turns, for dropping by hand (absent without a session). */
  turns?: ContextTurnView[];
  /** How many earlier turns `turns` leaves out (absent when none; /drop reaches them by number). */
  turnsOmitted?: number;
  /** Whether a drop on this branch can be undone. */
  canUndoDrop?: boolean;
  dropPreview?: DropPreviewView;
  /** `since` is an ISO timestamp. */
  busy?: { what: BusyWhat; since: string };
  history: HistoryView;
  /** Tokens and cost per turn and for the branch; absent without a session. */
  usage?: UsageView;
  notice?: Notice;
}

/** The state of a window with no session: what the panel shows before the backend has anything. */
export function emptyPanelState(): PanelState {
  return { history: { compactions: [], pins: [], pinnable: [] } };
}
