// How long each policy's summaries are, as measured on summaries real models wrote under that policy's prompt: the stand-in writes that length, within the call's own cap.

/**
 * pi's prompt (a concise structured checkpoint: "Keep each section concise"): the two summaries pi wrote in the
 * repository's own recording, test/fixtures/pi-sessions/before-compaction.jsonl (its `compaction` entries, 4,291 and
 * 3,649 characters: 1,111 and 963 tokens in o200k), averaged. A unit test recounts them from the fixture.
 */
export const PI_SUMMARY_TOKENS = 1037;

/**
 * Ours asks for the same kind of summary as pi's (concise, concrete, fixed headings, exact paths) and tells the model
 * its size limit; without a recording of ours, pi's measured length stands in, within that limit.
 */
export const OURS_SUMMARY_TOKENS = PI_SUMMARY_TOKENS;

/**
 * Claude Code's prompt asks for a chronological analysis and then a detailed summary with full code snippets: the one
 * compaction summary in M-Thisness/M-Claude at 5a8d89ee (`Archives/3af9b1a7-6512-4883-ad18-320658ced099.jsonl`,
 * the `isCompactSummary` entry, CC0) holds 4,251 tokens (o200k) of model-written text, analysis and summary, between
 * the wrapper lines Claude Code adds.
 */
export const CLAUDE_CODE_SUMMARY_TOKENS = 4251;

/**
 * OpenCode's prompt asks for "a detailed prompt for continuing" in a five-section template. No recording of a summary it
 * wrote was found whose source could be cited, so this is not measured: pi's measured length stands in for a structured
 * template (partial; the README says so).
 */
export const OPENCODE_SUMMARY_TOKENS = PI_SUMMARY_TOKENS;

/** Share of a call's output limit a summary may fill (a model stops before its max_tokens). */
export const SUMMARY_FILL = 0.8;

/** The length the stand-in writes for a policy: what its prompt produces, within 80 % of the call's output limit. */
export function summaryLength(produced: number, maxOutputTokens: number): number {
  return Math.max(1, Math.min(produced, Math.floor(maxOutputTokens * SUMMARY_FILL)));
}
