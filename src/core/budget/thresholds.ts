// Every size the context policy uses, as a clamped fraction of the window: the seeds' numbers at 200k, sane at 8k.
import type { Settings } from '../settings/settings';

/**
 * What the policy works with for one window. All token figures are in the endpoint's own units (the
 * meter converts our counts with the calibration), so every decision compares like with like.
 */
export interface Thresholds {
  window: number;
  /** Room always left for the reply: a prompt never grows past window − outputReserve. */
  outputReserve: number;
  /** window − outputReserve: what the prompt may fill. */
  usable: number;
  /** Newest history kept verbatim by a compaction (before the room check in the cut plan). */
  keepRecent: number;
  /** Newest tool output never pruned. */
  pruneProtect: number;
  /** A prune must free at least this much (a smaller one is not worth losing the prompt cache). */
  pruneMinimum: number;
  /** Pruning is considered only above this fill level of `usable`. */
  pruneAtPercent: number;
  /** Whether the loop prunes on its own at this window (a person can always prune with /prune). */
  autoPrune: boolean;
  /** Most a compaction summary may take. */
  summaryTokens: number;
  /** Tool outputs longer than this are capped (head and tail) when they enter the log. */
  toolOutputChars: number;
  toolOutputLines: number;
  /** Tool definitions may take at most this share of `usable`; beyond it fewer optional tools are offered. */
  toolsShare: number;
}

/** One rule per threshold: a fraction of the window, clamped. At a 200k window each gives the seeds' number. */
interface Rule {
  fraction: number;
  min: number;
  max: number;
}

/**
 * The anchors' numbers at 200k: pi's reserve 16384, OpenCode's protect 40k and minimum 20k, pi's summary budget
 * 0.8 × 16384, our 24k-character output cap (50 KB at the largest windows); the kept tail is half of pi's 20000 there
 * (a sixteenth of the window, 1024–10,000: see LARGE_WINDOW for how it was chosen). Fixed numbers are wrong at 8k–32k
 * (a 16k reserve is a whole 16k window; a 40k protect means pruning can never fire at 64k), so each
 * scales with the window and is clamped where a fraction stops making sense. A prune's minimum keeps growing to
 * 40k (reached at 400k): a prune re-sends everything after the first output it hides uncached, and at 1M that is
 * most of a long context, so one that frees 20k does not pay back before the session ends or the cache expires
 * (the value bench, chosen without and judged on each family: with 20k the Claude Code and Roo Code sessions paid
 * 4–5 % more than the peers for one such prune; 40k keeps pi's and Codex's savings).
 */
export const RULES = {
  outputReserve: { fraction: 0.082, min: 1024, max: 16_384 },
  keepRecent: { fraction: 0.0625, min: 1024, max: 10_000 },
  pruneProtect: { fraction: 0.2, min: 1024, max: 40_000 },
  pruneMinimum: { fraction: 0.1, min: 512, max: 40_000 },
  summaryTokens: { fraction: 0.1, min: 1024, max: 13_107 },
  toolOutputChars: { fraction: 0.12, min: 4000, max: 51_200 },
} as const satisfies Record<string, Rule>;

export const PRUNE_AT_PERCENT = 80;

/**
 * From this window up to HUGE_WINDOW the loop never prunes on its own: a prune rewrites the middle of the prompt and
 * costs the cache, and compacting instead keeps as much in view for less. Below it, pruning from 80 % keeps more
 * steps in an 8k window. With the kept tail at a sixteenth of the window (an eighth before), this is what the value
 * bench's leave-one-family-out choice picks at 32k and 128k over seven agents' sessions (BENCHMARKS.md, row 8:
 * "keep a sixteenth, no pruning" has at least the old defaults' utility on every family at 32k and is beaten on
 * none); each family's verdict comes from defaults chosen without it.
 *
 * Which sessions these defaults were chosen on: the bench's own (pi: test/fixtures/pi-sessions) and the public
 * sessions of Codex CLI, Claude Code, mini-swe-agent, Gemini CLI, Cline and Roo Code (test/fixtures/public-sessions).
 * The Crush, OpenCode and GitHub Copilot CLI sessions came after the choice: the table judges the defaults on them
 * too, each family by the choice made without it, and the defaults change only through that table's rule. Over all
 * ten families the rule keeps these defaults at 8k, 32k, 128k and 1M; at 200k it prefers compacting at 60 % (the
 * defaults are not beaten there by any peer, paired; the change was not made: it needs a window-dependent trigger).
 */
export const LARGE_WINDOW = 24_000;

/**
 * Tool outputs are capped at 12 % of the window in characters, up to 50 KB (pi's and OpenCode's cap, reached from a
 * ~430k window), and at 1,000 lines, 2,000 (their line cap) from this window up: at 1M the value bench measured the
 * smaller caps as the only thing our defaults lost (BENCHMARKS.md, row 8).
 */
export const HUGE_WINDOW = 400_000;
/**
 * From HUGE_WINDOW up, old outputs are pruned from 10 % of the usable budget (as OpenCode's classic pruning does on
 * every request): at 1M the replayed sessions never compact, every call resends the whole history, and pruning early
 * cost 28 % less on the bench sessions and 16 % less on the public ones, for at most 0.2 points of availability
 * (BENCHMARKS.md, row 8).
 */
export const HUGE_WINDOW_PRUNE_AT_PERCENT = 10;
const TOOL_OUTPUT_LINES = 1000;
const HUGE_WINDOW_TOOL_OUTPUT_LINES = 2000;
export const TOOLS_SHARE = 0.25;
/** The smallest summary that still has room for every required heading. */
const MIN_SUMMARY_TOKENS = 256;
/** A capped output still shows a useful head and tail. */
const MIN_OUTPUT_CHARS = 1000;

function scaled(rule: Rule, window: number): number {
  return Math.round(Math.min(rule.max, Math.max(rule.min, rule.fraction * window)));
}

/** A setting of 0 means "scale with the window"; an explicit value is the user's and is kept (within `cap`). */
function chosen(setting: number, rule: Rule, window: number, cap: number = Number.POSITIVE_INFINITY): number {
  return Math.min(cap, setting > 0 ? setting : scaled(rule, window));
}

/**
 * The thresholds for a window. An explicit reserve or max-output setting is honoured, but the reserve
 * never takes more than half the window, so a small model keeps room for a prompt.
 */
export function thresholdsFor(window: number, settings: Settings): Thresholds {
  const safeWindow = Math.max(1, Math.floor(window));
  const half = Math.floor(safeWindow / 2);
  const requestedOutput = settings.context.maxOutputTokens;
  const reserve = Math.min(half, Math.max(chosen(settings.compaction.reserveTokens, RULES.outputReserve, safeWindow), requestedOutput));
  const usable = Math.max(0, safeWindow - reserve);
  return {
    window: safeWindow,
    outputReserve: reserve,
    usable,
    keepRecent: chosen(settings.compaction.keepRecentTokens, RULES.keepRecent, safeWindow, usable),
    pruneProtect: chosen(settings.pruning.protectTokens, RULES.pruneProtect, safeWindow),
    pruneMinimum: chosen(settings.pruning.minimumTokens, RULES.pruneMinimum, safeWindow),
    pruneAtPercent: safeWindow >= HUGE_WINDOW ? HUGE_WINDOW_PRUNE_AT_PERCENT : PRUNE_AT_PERCENT,
    autoPrune: safeWindow < LARGE_WINDOW || safeWindow >= HUGE_WINDOW,
    // An explicit summary size is the user's, but never more than a quarter of what the prompt may fill.
    summaryTokens: settings.compaction.summaryTokens > 0 ? Math.max(MIN_SUMMARY_TOKENS, Math.min(settings.compaction.summaryTokens, Math.floor(usable / 4))) : scaled(RULES.summaryTokens, safeWindow),
    toolOutputChars: Math.max(MIN_OUTPUT_CHARS, chosen(settings.tools.outputMaxChars, RULES.toolOutputChars, safeWindow)),
    toolOutputLines: settings.tools.outputMaxLines > 0 ? settings.tools.outputMaxLines : safeWindow >= HUGE_WINDOW ? HUGE_WINDOW_TOOL_OUTPUT_LINES : TOOL_OUTPUT_LINES,
    toolsShare: TOOLS_SHARE,
  };
}
