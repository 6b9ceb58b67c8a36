// The deterministic stand-in for the summarizing model, the same for every policy: the required sections, part specifics copied from what it was given, part prose.
import { REQUIRED_HEADINGS } from '../src/core/compaction/summaryPrompt';
import { salientTokens } from './needRetention';

/** Tokens of the model-written part of every summary when the size limit allows (our appendix, or a peer's file lists, come on top). */
export const SUMMARY_TOKENS = 1200;

const FILLER = 'The agent read the files named in the ledger and fixed what the user asked; details follow. ';

/** Share of the summary the stand-in spends on specifics copied verbatim (paths, identifiers, numbers); the rest is prose. */
const SPECIFICS_SHARE = 0.5;
/** Characters per token of a list of specifics (short tokens with a bullet each). */
const CHARS_PER_TOKEN = 3;

/** The salient tokens of a text, the most recently mentioned first (a summary keeps the newest specifics). */
export function recentSpecifics(text: string): string[] {
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    for (const token of salientTokens(line)) seen.add(token);
  }
  return [...seen];
}

/**
 * A valid summary of about `tokens` tokens (a sentence of filler is 20 tokens), passing our validation. With a
 * `source` (the text the summary request carried), half of it lists that text's specifics verbatim, newest first:
 * a model that follows "preserve exact file paths, function names and error messages" within its size. What it
 * picks never depends on what later steps use.
 */
export function standInSummary(tokens: number = SUMMARY_TOKENS, source = ''): string {
  const specifics: string[] = [];
  let chars = 0;
  const budget = source ? tokens * SPECIFICS_SHARE * CHARS_PER_TOKEN : 0;
  for (const token of source ? recentSpecifics(source) : []) {
    if (chars + token.length + 3 > budget) break;
    specifics.push(`- ${token}`);
    chars += token.length + 3;
  }
  const proseTokens = tokens - Math.ceil(chars / CHARS_PER_TOKEN);
  const body = FILLER.repeat(Math.max(1, Math.floor(proseTokens / 20 / REQUIRED_HEADINGS.length)));
  return REQUIRED_HEADINGS.map((heading) => {
    if (heading === '## Next steps') return `${heading}\n- Continue with the next request.`;
    if (heading === '## Critical context' && specifics.length > 0) return `${heading}\n${body}\n${specifics.join('\n')}`;
    return `${heading}\n${body}`;
  }).join('\n\n');
}

/** What the stand-in answers when asked for the head of a split turn (a few bullets). */
export const TURN_PREFIX_STAND_IN = '- The user asked for the change described in the kept request.\n- The agent read the relevant files and ran the tests; the kept steps continue from there.';

/** Tokens of specifics the stand-in lists in a split turn's head summary (the same for every policy that writes one). */
const TURN_PREFIX_SPECIFICS_TOKENS = 150;

/** The stand-in's split-turn head summary of what that request carried: two bullets, then its newest specifics. */
export function turnPrefixStandIn(source: string): string {
  const specifics: string[] = [];
  let chars = 0;
  for (const token of recentSpecifics(source)) {
    if (chars + token.length + 3 > TURN_PREFIX_SPECIFICS_TOKENS * CHARS_PER_TOKEN) break;
    specifics.push(`- ${token}`);
    chars += token.length + 3;
  }
  return [TURN_PREFIX_STAND_IN, ...specifics].join('\n');
}
