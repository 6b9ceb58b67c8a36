// The deterministic stand-in for the summarizing model: one fixed-size text in the required sections, the same for every policy.
import { REQUIRED_HEADINGS } from '../src/core/compaction/summaryPrompt';

/** Tokens of the model-written part of every summary (our appendix, or a peer's file lists, come on top). */
export const SUMMARY_TOKENS = 1200;

const FILLER = 'The agent read the files named in the ledger and fixed what the user asked; details follow. ';

/** A valid summary of about `tokens` tokens (a sentence of filler is 20 tokens), passing our validation. */
export function standInSummary(tokens: number = SUMMARY_TOKENS): string {
  const body = FILLER.repeat(Math.max(1, Math.floor(tokens / 20 / REQUIRED_HEADINGS.length)));
  return REQUIRED_HEADINGS.map((heading) => `${heading}\n${heading === '## Next steps' ? '- Continue with the next request.' : body}`).join('\n\n');
}

/** What the stand-in answers when asked for the head of a split turn (a few bullets). */
export const TURN_PREFIX_STAND_IN = '- The user asked for the change described in the kept request.\n- The agent read the relevant files and ran the tests; the kept steps continue from there.';
